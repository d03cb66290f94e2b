/* trace.c: MPD_TRACE, SR_TRACE for SR programs (mpdtrace(5)) -- one formatted line per runtime event.
 *
 * Tracing is decided once, at program start, from the environment; the
 * rest of the runtime tests mpd_trc_on only on paths that are already slow
 * (or that tracing forces onto slow paths: see op.c and opsem.c).  A line is
 * formatted in a local buffer and written with one call, so lines of
 * processes on different VPs never mix: to stdout through stdio (so the
 * trace stays in order with the program's own output), to stderr after
 * flushing stdout, to a file with one write(2) each (O_APPEND), so that
 * nothing is lost when the program aborts or deadlocks.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpd/abi/io.h"
#define MPD_TRACE_WRITER
#include "mpd/abi/trace.h"
#include "opint.h"

/* mpd_trc_on, which everyone else sees as const */
int mpd__trc_on_rw __asm__("mpd_trc_on");
#define mpd_trc_on mpd__trc_on_rw
extern int mpd__watch_on_rw __asm__("mpd__watch_on"); /* core/timeline.c */
static int trc_fd = -1; /* a named file; -1: stdout or stderr via stdio */
static FILE *trc_stream;
static int trc_vms; /* a vm was created: names get "vm(n)." */

uint64_t mpd_proc_seq(const mpd_proc *p);

static const char *const evnames[MPD_EV_COUNT] = {
    "CREATER", "CREATEG", "CREATEV", "DESTROYR", "DESTROYV", "CALL", "SEND",    "FORWARD", "REPLY",
    "RETURN",  "BODY",    "ENDBODY", "FINAL",    "ENDFINAL", "PROC", "ENDPROC", "IN",      "ARM",
    "NI",      "CREATES", "INITS",   "P",        "CONTP",    "V",    "CO",      "OC",
};

const char *mpd_trc_evname(int ev)
{
    return ev >= 0 && ev < MPD_EV_COUNT ? evnames[ev] : "?";
}

/* Start tracing to `f` ("stdout", "stderr" or a file name); a second call
 * (an SR program's SR_TRACE after MPD_TRACE) replaces the first's file. */
void mpd__trc_open(const char *f)
{
    if (!f || !*f)
        return;
    if (trc_fd >= 0) {
        close(trc_fd);
        trc_fd = -1;
    }
    trc_stream = NULL;
    if (strcmp(f, "stdout") == 0) {
        trc_stream = stdout;
    } else if (strcmp(f, "stderr") == 0) {
        trc_stream = stderr;
    } else {
        trc_fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0666);
        if (trc_fd < 0) {
            fprintf(stderr, "RTS warning: cannot open trace file %s\n", f);
            mpd_trc_on = 0;
            return;
        }
    }
    mpd_trc_on = 1;
    mpd__watch_on_rw = 1;
}

/* MPD_TRACE is read before main, so that nothing the program does escapes
 * it; an SR program's SR_TRACE is read by mpd_rt_main (core/main.c) once
 * the start file has said the program is SR (mpd_rt_set_env_prefix). */
__attribute__((constructor)) static void trc_init(void)
{
    mpd__trc_open(getenv("MPD_TRACE"));
}

/* Process ids are creation numbers, not addresses, so that a trace of a
 * deterministic run is the same every time (and in tests). */
static uintptr_t proc_id(const mpd_proc *p)
{
    return p ? (uintptr_t)(0x10000 + mpd_proc_seq(p)) : 0x10000;
}

uintptr_t mpd_trc_self(void)
{
    return proc_id(mpd_self());
}

/* The invoker's id rides in the block's spare word (only while tracing). */
void mpd_trc_mark_invoker(void *ib)
{
    if (mpd_trc_on && ib)
        ((mpd_invb *)ib)->_pad = (uint32_t)mpd_trc_self();
}

/* The process that invoked block ib, recorded when it was invoked; after
 * a reply to a call, the replier itself (as MPD 1.0.1 shows it). */
uintptr_t mpd_trc_invoker(const void *ib)
{
    const mpd_invb *b = ib;
    return b && b->_pad ? b->_pad : mpd_trc_self();
}

static void emit(const char *line, size_t n)
{
    if (trc_fd >= 0) {
        ssize_t w = write(trc_fd, line, n);
        (void)w;
    } else if (trc_stream == stdout) {
        fwrite(line, 1, n, stdout);
    } else {
        mpd_io_flush_all();
        fwrite(line, 1, n, stderr);
    }
}

/* Semaphore ids: the op's object slot and index rather than its address,
 * again so that a deterministic run traces the same every time. */
static uintptr_t sem_id(uintptr_t extra)
{
    const mpd_op *op = (const mpd_op *)extra;
    if (!op || !op->owner)
        return extra;
    uintptr_t slot = (uint32_t)op->owner->id, idx = (uintptr_t)(op - op->owner->ops);
    return 0x1000000 + slot * 0x10000 + idx;
}

void mpd_trc(const char *F, int L, int ev, uintptr_t extra)
{
    if (!mpd_trc_on)
        return;
    if (ev == MPD_EV_CREATES || ev == MPD_EV_P || ev == MPD_EV_CONTP || ev == MPD_EV_V)
        extra = sem_id(extra);
    mpd_proc *self = mpd_self();
    const char *name = self ? mpd_proc_name(self) : "";
    if (!name || name[0] == '[')
        return; /* runtime processes are not traced */
    char buf[320], loc[160];
    if (F)
        snprintf(loc, sizeof loc, "%s, %d  ", F, L);
    else
        snprintf(loc, sizeof loc, "(unknown location)  ");
    int n;
    if (trc_vms)
        n = snprintf(buf, sizeof buf, "%-20svm(%u).%-14s  %-8s  %-8lX  %-8lX\n", loc,
                     (unsigned)(res_vm(opk_cur_res()) & 0x7fffffffu), /* dist: DVM */ name,
                     mpd_trc_evname(ev), (unsigned long)proc_id(self), (unsigned long)extra);
    else
        n = snprintf(buf, sizeof buf, "%-20s%-20s  %-8s  %-8lX  %-8lX\n", loc, name,
                     mpd_trc_evname(ev), (unsigned long)proc_id(self), (unsigned long)extra);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    emit(buf, (size_t)n);
    if (ev == MPD_EV_CREATEV)
        trc_vms = 1; /* as in MPD: from here on the program is distributed */
}

/* What a traced proc keeps between PROC and ENDPROC. */
typedef struct trc_frame {
    uintptr_t invoker;
    void **ibp; /* the proc's block pointer: a reply changes it */
    int renamed;
    char old[];
} trc_frame;

void *mpd_trc_enter(const char *F, int L, const char *name, const void *ib)
{
    mpd_proc *self = mpd_self();
    const char *old = self ? mpd_proc_name(self) : NULL;
    size_t n = old ? strlen(old) + 1 : 1;
    trc_frame *fr = malloc(sizeof *fr + n);
    if (!fr)
        mpd_rts_fatal("out of memory");
    fr->invoker = mpd_trc_invoker(ib);
    fr->ibp = NULL;
    fr->renamed = old && strcmp(old, name) != 0;
    memcpy(fr->old, old ? old : "", n);
    if (fr->renamed)
        mpd_proc_set_name(self, name); /* as MPD: a call runs under the proc's name */
    mpd_trc(F, L, MPD_EV_PROC, fr->invoker);
    return fr;
}

void *mpd_trc_enter_proc(const char *F, int L, const char *name, void *ibp)
{
    void **bp = ibp;
    if (bp && *bp) {
        trc_frame *fr = mpd_trc_enter(F, L, name, *bp);
        fr->ibp = bp;
        return fr;
    }
    if (bp) { /* a direct call: CALL where it was, by the caller */
        const mpd_trc_site *site = ibp;
        mpd_trc(site->file, site->line, MPD_EV_CALL, 0);
    }
    return mpd_trc_enter(F, L, name, NULL);
}

void mpd_trc_leave(const char *F, int L, void *saved)
{
    trc_frame *fr = saved;
    if (!fr)
        return;
    mpd_trc(F, L, MPD_EV_ENDPROC, fr->ibp && *fr->ibp ? mpd_trc_invoker(*fr->ibp) : fr->invoker);
    if (fr->renamed)
        mpd_proc_set_name(mpd_self(), fr->old);
    free(fr);
}

/* op->_pad marks an op declared as a `sem` (only while tracing). */
void mpd_trc_sems(const char *F, int L, mpd_op *op, uint32_t n, int has_init)
{
    for (uint32_t i = 0; i < n; i++)
        op[i]._pad = 1;
    mpd_trc(F, L, MPD_EV_CREATES, (uintptr_t)op);
    if (has_init && op_kind(op) == MPD_OPK_INPUT && op_counted(op))
        mpd_trc(F, L, MPD_EV_INITS, opq_sem_count(op_queue(op))); /* just set */
}

/* The traced P of opsem.c, around its P: a semaphore's P/CONTP, or a
 * receive's IN/ARM/NI.  Two halves, so that the P itself stays opsem.c's
 * (trace.c is below it). */
void mpd_trc_P_begin(const char *F, int L, mpd_op *op)
{
    int sem = op->_pad == 1;
    mpd_trc(F, L, sem ? MPD_EV_P : MPD_EV_IN, sem ? (uintptr_t)op : 0);
}
void mpd_trc_P_end(const char *F, int L, mpd_op *op)
{
    if (op->_pad == 1) {
        mpd_trc(F, L, MPD_EV_CONTP, (uintptr_t)op);
    } else {
        mpd_trc(F, L, MPD_EV_ARM, mpd_trc_self());
        mpd_trc(F, L, MPD_EV_NI, mpd_trc_self());
    }
}

/* The traced V: a semaphore's V, or a send. */
void mpd_trc_V(const char *F, int L, mpd_op *op)
{
    if (op->_pad == 1)
        mpd_trc(F, L, MPD_EV_V, (uintptr_t)op);
    else
        mpd_trc(F, L, MPD_EV_SEND, 0);
}
