/* mpd/abi/trace.h: MPD_TRACE, the runtime event trace of mpdtrace(5).
 *
 * When the environment variable MPD_TRACE names a file (or `stdout`,
 * `stderr`) at program start, every traced event writes one line:
 *
 *   file, line          proc-name             EVENT     pid       extra
 *
 * Events of statements the compiler sees (BODY, PROC, IN, ARM, CO...) are
 * written by generated code behind MPD_TRC (one predictable test of
 * mpd_trc_on); events of runtime operations (CALL, SEND, P, V, CREATER...)
 * are written by the runtime on paths that tracing forces: with tracing on,
 * semaphores never take the inline SEM1 path and ops never take the direct
 * call path, so the fast paths themselves carry no test (docs/trace.md).
 */
#ifndef MPD_TRACE_H
#define MPD_TRACE_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The events, in mpdtrace(5)'s order; mpd_trc_evname() gives the word. */
enum mpd_trc_ev {
    MPD_EV_CREATER,
    MPD_EV_CREATEG,
    MPD_EV_CREATEV,
    MPD_EV_DESTROYR,
    MPD_EV_DESTROYV,
    MPD_EV_CALL,
    MPD_EV_SEND,
    MPD_EV_FORWARD,
    MPD_EV_REPLY,
    MPD_EV_RETURN,
    MPD_EV_BODY,
    MPD_EV_ENDBODY,
    MPD_EV_FINAL,
    MPD_EV_ENDFINAL,
    MPD_EV_PROC,
    MPD_EV_ENDPROC,
    MPD_EV_IN,
    MPD_EV_ARM,
    MPD_EV_NI,
    MPD_EV_CREATES,
    MPD_EV_INITS,
    MPD_EV_P,
    MPD_EV_CONTP,
    MPD_EV_V,
    MPD_EV_CO,
    MPD_EV_OC,
    MPD_EV_COUNT
};

/* Nonzero while tracing.  Set once, before main (lang/trace.c writes it
 * through another name), and constant afterwards: declared const, so that
 * the C compiler may hoist its test out of loops, and with mpd -O's
 * -funswitch-loops run a loop of direct calls with no test in it at all. */
#ifndef MPD_TRACE_WRITER
extern const int mpd_trc_on;
#endif

const char *mpd_trc_evname(int ev);
/* One line for the running process.  extra: the event's second field. */
void mpd_trc(const char *F, int L, int ev, uintptr_t extra);
/* The trace id of the running process (what the pid field shows). */
uintptr_t mpd_trc_self(void);
/* A proc begins in the running process: its trace name becomes `name`
 * ("res.proc") until mpd_trc_leave; writes PROC.  ib: its invocation block
 * (NULL for a direct call).  Returns what mpd_trc_leave needs. */
void *mpd_trc_enter(const char *F, int L, const char *name, const void *ib);
/* A direct call site of a proc (the compiler's fast path, a plain C call):
 * the call passes &site.none as the proc's block pointer, so that the proc,
 * once its arguments are evaluated, writes the CALL at the site.  `none` is
 * always NULL: no block. */
typedef struct mpd_trc_site {
    void *none;
    const char *file;
    int line;
} mpd_trc_site;
/* A proc's prologue: ibp is the proc's `mpd_invb **` -- a block's address
 * (invoked through an op), a call site's (mpd_trc_site), or NULL. */
void *mpd_trc_enter_proc(const char *F, int L, const char *name, void *ibp);
/* The proc ends: ENDPROC, and the process's previous trace name back. */
void mpd_trc_leave(const char *F, int L, void *saved);
/* The invoker recorded in block ib (the running process if none). */
uintptr_t mpd_trc_invoker(const void *ib);
/* The runtime records the invoker in a block it is about to deliver. */
void mpd_trc_mark_invoker(void *ib);

/* `sem` declarations: n ops from op are semaphores (CREATES, and INITS
 * with the initial value when the declaration gives one).  The runtime traces P and V of them as P,
 * CONTP and V, and of other parameterless ops (which generated code also
 * sends and receives with P and V) as SEND and IN/ARM/NI, as MPD did. */
struct mpd_op;
void mpd_trc_sems(const char *F, int L, struct mpd_op *op, uint32_t n, int has_init);

#define MPD_TRC(F, L, ev, x)                                                                       \
    (__builtin_expect(mpd_trc_on, 0) ? mpd_trc((F), (L), (ev), (uintptr_t)(x)) : (void)0)

#ifdef __cplusplus
}
#endif
#endif
