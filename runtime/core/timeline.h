/* timeline.h: the timeline's binary event log (MPD_TIMELINE, mpd run
 * --timeline; docs/trace.md, "The timeline").
 *
 * When MPD_TIMELINE names a file at program start, the runtime records what
 * its processes and VPs do -- create, run, block (on what), wake (by whom),
 * exit, send/call and the receive that took it, VP idle, resource create
 * and destroy, the end -- as fixed 32-byte records in a buffer of the
 * recording thread (no lock, no formatting), and writes them out at the end
 * as one self-contained HTML page (or Chrome/Perfetto trace-event JSON when
 * the name ends in .json).
 *
 * Everything here is behind mpd__tl_on, a constant after start-up that the
 * hooks test once (one predictable branch when the timeline is off).  With
 * the timeline on, the one-VP shortcuts that switch without the core's
 * general paths (block_fast1, the exit jump, the generated code's inline
 * semaphore handoff) are off (mpd__mode_set: mode ONE), so the few hooks in switch_away,
 * the VP loop, mpd_unpark and process creation see every switch and wakeup.
 */
#ifndef MPD_TIMELINE_H
#define MPD_TIMELINE_H
#include <stdint.h>

/* Nonzero while recording; set once, before main (timeline.c writes it
 * through another name). */
#ifndef MPD_TL_WRITER
extern const int mpd__tl_on;
/* Nonzero when MPD_TRACE or MPD_TIMELINE is on: paths that both watch (an
 * invocation, a semaphore's slow P and V) test this one flag, so that they
 * cost what they cost before the timeline came. */
extern const int mpd__watch_on;
#endif

/* Event kinds (the page and the JSON export name them: tl_write.c). */
enum {
    TL_CREATE,     /* pid: new process; a: creator pid; file/line: creator's */
    TL_RUN,        /* pid starts running on this VP */
    TL_BLOCK,      /* pid blocks; a: TL_WHY_* << 56 | object id; where it waits */
    TL_YIELD,      /* pid gives up the VP, still ready (slice, yield) */
    TL_EXIT,       /* pid ends */
    TL_WAKE,       /* pid (or 0: a timer, an I/O helper) makes a's process ready */
    TL_IDLE,       /* this VP has nothing to run */
    TL_SEND,       /* pid sends invocation a (its id) at file/line */
    TL_CALL,       /* pid calls: invocation a */
    TL_TAKE,       /* pid takes invocation a (a receive, an in, a proc's start) */
    TL_RESCREATE,  /* pid creates a resource: a is the pattern's name (char *) */
    TL_RESDESTROY, /* pid destroys a resource */
    TL_DEADLOCK,   /* the program is quiescent with a processes blocked */
    TL_END,        /* the program ends with status a */
    TL_NAME,       /* process pid is named a (a char * that outlives the run) */
    TL_ABORT,      /* pid stops the program with an RTS abort at file/line */
    TL_P,          /* pid has passed P of semaphore a (an op's address) */
    TL_V,          /* pid does V of semaphore a */
    TL_SEMDECL, /* semaphore a (address | its op index in its object << 48) declared at file/line */
    TL_NKINDS
};

/* What a blocked process waits for (TL_BLOCK's a >> 56). */
enum {
    TL_WHY_PARK,
    TL_WHY_SEM,
    TL_WHY_IN,
    TL_WHY_RECEIVE,
    TL_WHY_CALL,
    TL_WHY_IO,
    TL_WHY_TIMER,
    TL_WHY_WAIT,
    TL_WHY_JOIN,
    TL_NWHY
};

typedef struct tl_ev {
    uint64_t t;       /* time stamp counter (or ns without one) */
    const char *file; /* source file (a string that outlives the run), or NULL */
    uint64_t a;       /* per kind, above */
    uint32_t pid;     /* process: creation number + 1 (0: none) */
    uint32_t kl;      /* kind << 24 | line */
} tl_ev;

/* One event in the calling thread's buffer. */
void mpd__tl_rec(int kind, uint32_t pid, uint64_t a, const char *file, int line);

/* The running process's id (0 outside a process). */
uint32_t mpd__tl_self(void);

/* What the running process is about to wait for, set by the language layer
 * before a wait that may block (TL_WHY_* << 56 | object id); the next block
 * of this thread reports it, any switch clears it. */
extern _Thread_local uint64_t mpd__tl_why;
static inline void mpd__tl_wait_for(int why, uint64_t obj)
{
    mpd__tl_why = (uint64_t)why << 56 | (obj & ((1ull << 56) - 1));
}

/* A new invocation id, never 0 (unique per thread and buffer; 24 bits of
 * count: a pairing lasts far less than 16M invocations of one thread). */
uint32_t mpd__tl_new_id(void);

/* An invocation leaves (SEND or CALL): gives block ib an id (its spare
 * word, unless MPD_TRACE uses it) and records it.  Taking it: TAKE
 * (lang/tl_inv.c). */
struct mpd_invb;
void mpd__tl_invoke(int kind, const char *F, int L, struct mpd_invb *ib);
void mpd__tl_take(const char *F, int L, struct mpd_invb *ib);

/* Who made a process ready (TL_WAKE's a >> 32). */
enum { TL_BY_PROC, TL_BY_TIMER, TL_BY_IO };

/* A semaphore declared at F/L (kept with the names: never overwritten). */
void mpd__tl_semdecl(const char *F, int L, const void *op, uint32_t index);

/* The program ends (mpd__finish_output, aborts): write the log out.  Once. */
void mpd__tl_finish(int status);

#define MPD_TL(stmt)                                                                               \
    do {                                                                                           \
        if (__builtin_expect(mpd__tl_on, 0)) {                                                     \
            stmt;                                                                                  \
        }                                                                                          \
    } while (0)
#endif
