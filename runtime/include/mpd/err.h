/* mpd/err.h: how the runtime reports MPD runtime errors and warnings.
 *
 * Runtime errors use MPD 1.0.1's format on stderr:
 *     RTS abort: file F, line L:
 *        <message>
 * and end the program with exit status 1.  Warnings ("RTS warning: ...")
 * do not stop the program.  Standard output is flushed first so that the
 * error appears after everything the program wrote. */
#ifndef MPD_ERR_H
#define MPD_ERR_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Report a runtime error at MPD source position (file, line) and exit(1).
 * fmt/... is the message, printf-style, without a trailing newline. */
_Noreturn void mpd_rts_abort(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
_Noreturn void mpd_rts_vabort(const char *file, int line, const char *fmt, va_list ap)
    __attribute__((cold));

/* The same, for an error the virtual machine manager reports on behalf of
 * virtual machine vm (locate): "[vm N] RTS abort: file F, line L:". */
_Noreturn void mpd_rts_abort_vm(unsigned vm, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

/* Report a fatal runtime condition with no source position (out of memory,
 * too many processes...): "RTS abort: <message>" and exit(1). */
_Noreturn void mpd_rts_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));

/* "RTS warning: <message>" on stderr; the program goes on. */
void mpd_rts_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The hook run just before the process exits on an abort (default: flush
 * stdio).  The language layer may replace it, e.g. to flush MPD files. */
extern void (*mpd_rts_before_exit)(void);

/* "[vm N] " before every RTS message of a distributed program (MPD's
 * label; empty otherwise). */
extern char mpd_rts_label[32];
/* Ends the process with status, after aborts and stop: _exit, unless the
 * distributed layer installed mpd_rts_exit_hook (it ends the other
 * virtual machines' processes too, and does not return). */
_Noreturn void mpd_rts_exit(int status);
extern void (*mpd_rts_exit_hook)(int status);

#ifdef __cplusplus
}
#endif
#endif
