/* err.c: MPD runtime error and warning reports (format fixed by MPD 1.0.1). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mpd/err.h"
#include "core/timeline.h"

static void default_before_exit(void)
{
    fflush(NULL);
}
void (*mpd_rts_before_exit)(void) = default_before_exit;
char mpd_rts_label[32];
void (*mpd_rts_exit_hook)(int status);

_Noreturn void mpd_rts_exit(int status)
{
    if (mpd_rts_exit_hook)
        mpd_rts_exit_hook(status);
    _exit(status);
}

static _Noreturn void vabort_at(const char *prefix, const char *file, int line, const char *fmt,
                                va_list ap)
{
    MPD_TL(mpd__tl_rec(TL_ABORT, mpd__tl_self(), 0, file, line); mpd__tl_finish(1));
    if (mpd_rts_before_exit)
        mpd_rts_before_exit();
    fprintf(stderr, "%sRTS abort: file %s, line %d:\n   ", *prefix ? prefix : mpd_rts_label,
            file ? file : "?", line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    mpd_rts_exit(1); /* other VPs may be running: do not run atexit handlers */
}

_Noreturn void mpd_rts_vabort(const char *file, int line, const char *fmt, va_list ap)
{
    vabort_at("", file, line, fmt, ap);
}

_Noreturn void mpd_rts_abort_vm(unsigned vm, const char *file, int line, const char *fmt, ...)
{
    char prefix[32];
    va_list ap;
    snprintf(prefix, sizeof prefix, "[vm %u] ", vm);
    va_start(ap, fmt);
    vabort_at(prefix, file, line, fmt, ap);
}

_Noreturn void mpd_rts_abort(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mpd_rts_vabort(file, line, fmt, ap);
}

_Noreturn void mpd_rts_fatal(const char *fmt, ...)
{
    va_list ap;
    MPD_TL(mpd__tl_finish(1));
    if (mpd_rts_before_exit)
        mpd_rts_before_exit();
    fprintf(stderr, "%sRTS abort: ", mpd_rts_label);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    mpd_rts_exit(1);
}

void mpd_rts_warning(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%sRTS warning: ", mpd_rts_label);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
