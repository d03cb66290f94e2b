/* mpf_internal.h: the layout of an MPF segment and the helpers shared by the mpf/ modules.
 *
 * Design.  Everything MPF shares lives in one region: a heap block for the
 * in-process deployment, a POSIX shared-memory mapping for the cross-process
 * one.  Inside it there are no pointers, only 32-bit offsets from the region
 * base (0 means "none"), so every process may map it at a different address.
 *
 *   header | process table | LNVC table | connection table | message headers | data blocks
 *
 * An LNVC is a singly linked FIFO of message headers running from `front` (the
 * oldest message still needed) to `tail`, an empty sentinel header that the next
 * send fills in.  Reading positions ("heads") point at the next message to read;
 * a head equal to `tail` means "nothing to read".  The FCFS receivers share
 * `fcfs_head`; each BROADCAST receiver keeps its own head in its connection.
 *
 * The close-receive problem is solved with a reference count per message, set
 * at send time to the number of readers due to get it (one per BROADCAST
 * receiver, one for the FCFS group if it has members).  A read decrements it; a
 * receiver that leaves decrements the messages between its own head and the
 * tail (only its own backlog, never anybody else's head).  Because every reader
 * consumes in order, counts reach zero in FIFO order, so freeing is "pop from
 * `front` while the count is zero" -- O(1) per message.
 *
 * Concurrency.  Each LNVC has a send lock and a receive lock.  A send (send
 * lock) fills the sentinel, links a fresh one and publishes the message by
 * writing its seq last; a receive (receive lock) reads the message at its head
 * once that message's seq is the one it expects, and drops references.  Neither
 * touches the other side's line, so one message costs the transfer of its own
 * lines.  Open, close, check and repair take both (send lock first).  Freed
 * headers go back to the send side MPF_BATCH at a time through a handover line.
 * Payloads longer than the inline area are copied into private blocks before a
 * send takes its lock; a receiver copies a long message out after releasing
 * its lock, holding a reference recorded in its connection (`holding`), so
 * BROADCAST receivers copy concurrently.  The name table has its own lock,
 * always taken before an LNVC's.  Message headers and data blocks come from
 * two lock-free stacks with ABA tags.  Locks record their owner's pid: the code
 * that takes one over from a dead owner takes the other lock too (a receive
 * lock taken over marks the LNVC broken, lets go and takes both in order),
 * rebuilds the derived state (tail, seqs, counts, reference counts) from the
 * parts that are always consistent, and marks the segment for reaping of dead
 * participants.
 *
 * Waiting.  A receiver with nothing to read spins on the sentinel's `seq` (the
 * last thing a send writes, in the line that also carries a short payload) and
 * on the LNVC's `word` (bumped by closes), then sleeps on `word`; a send wakes
 * only when `sleepers` says somebody sleeps.  Blocked FCFS receives instead
 * stand in a line, each on its own futex word, and are served in arrival order
 * (mpf_line.c).  A send never writes the header
 * that becomes the new sentinel, and a receive that frees the message it read
 * does not write it either. */
#ifndef MPF_INTERNAL_H
#define MPF_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mpd/mpf.h"
#include "mpd/rt.h"

#define MPF_MAGIC 0x3146504d2d44504dULL /* "MPD-MPF1" */
#define MPF_VERSION                                                                                \
    3u /* 2: senders_died, conn.asleep, proc.space_asleep; 3: the FCFS line (waiter table) */
#define MPF_MSG_NODE 256u               /* bytes per message header */
#define MPF_INLINE (MPF_MSG_NODE - 20u) /* payload bytes stored in the header itself */
#define MPF_PENDING 0xffffffffu         /* refs of a message sent while nobody received */
#define MPF_UNLOCKED_COPY 2048u         /* longer messages are copied out without the LNVC lock */
#define MPF_BLK_HDR 8u                  /* link word at the start of a data block */
#define MPF_CACHE 64

enum { LNVC_FREE = 0, LNVC_LIVE = 1 };
enum { CONN_NONE = 0 };

/* A queued message (or the sentinel / a free header). */
typedef struct mpf_msg {
    _Atomic uint32_t next; /* next in the LNVC queue, or in the free stack */
    uint32_t refs;         /* readers still due to read it (under the LNVC lock), or MPF_PENDING */
    _Atomic uint32_t seq;  /* position in the LNVC's send order (modulo 2^32); written last by a
                              send, so "seq == the LNVC's next_seq" is what a waiting receiver
                              watches for.  A sentinel keeps a stale value, never next_seq. */
    uint32_t len;          /* payload length */
    uint32_t data;         /* first data block when len > MPF_INLINE */
    unsigned char
        inl[MPF_INLINE]; /* short payloads: the first 44 bytes share the header's cache line */
} mpf_msg;

typedef struct mpf_blk {
    _Atomic uint32_t next; /* next block of the same message, or in the free stack */
    uint32_t pad;
    unsigned char bytes[];
} mpf_blk;

typedef struct mpf_proc {
    _Atomic int32_t os_pid; /* OS process using this id (cross-process), 0 if free */
    uint32_t nconn;         /* its connections (under the table lock) */
    _Atomic uint32_t
        space_asleep; /* 1 while counted in space_sleepers: the reaper uncounts a dead one */
} mpf_proc;

#define MPF_BATCH                                                                                  \
    4u /* freed headers travel from the receive side to the send side this many at a time */

typedef struct mpf_conn {
    uint8_t send;           /* 1 if connected as sender */
    uint8_t recv;           /* CONN_NONE, MPF_FCFS or MPF_BROADCAST */
    _Atomic uint8_t asleep; /* 1 while counted in the LNVC's sleepers: whoever clears it uncounts it
                               (the sleeper, or the reaper when it died asleep) */
    uint8_t pad;
    uint32_t head;     /* BROADCAST receiver: next message to read */
    uint32_t head_seq; /* its seq: the message at head is there once its seq says so */
    uint32_t holding;  /* message being copied out without the lock (it holds one reference) */
} mpf_conn;

/* A blocked FCFS receive standing in its LNVC's line (mpf_line.c): one slot
 * of the segment's waiter table per waiting thread, one cache line each. */
enum { MPF_W_SPIN = 0, MPF_W_ASLEEP = 1, MPF_W_WOKEN = 2 };
typedef struct mpf_waiter {
    _Atomic uint32_t
        word; /* futex word: MPF_W_* (a waker swaps in WOKEN, calls futex only if ASLEEP) */
    _Atomic uint32_t
        counted; /* 1 while counted in its LNVC's line_asleep: whoever clears it uncounts */
    _Atomic int32_t os_pid; /* owner's OS pid (1 in-process) while in use, 0 when free */
    uint32_t lnvc;   /* LNVC slot + 1 while linked in its line (under its receive lock), else 0 */
    uint32_t gen;    /* the LNVC incarnation it waits in */
    uint32_t ticket; /* arrival number in that line: a repair relinks in this order */
    uint32_t next;   /* next in line (index + 1), 0 at the tail */
} __attribute__((aligned(MPF_CACHE))) mpf_waiter;

typedef _Atomic uint32_t mpf_lock_t; /* 0, or owner's OS pid | waiters bit (mpf_lock.c) */

/* An LNVC has a send lock and a receive lock, so that a sender and a receiver
 * never pull each other's lines: per message only the message's own lines
 * travel (written by the sender, read by the receiver), plus one line per
 * MPF_BATCH messages that hands freed headers back to the send side.
 *   - identity and membership: changed under both locks, read by everyone;
 *   - send side (slock): tail, next_seq, headers ready to become sentinels;
 *   - receive side (rlock): front, the FCFS head, reference counts, freed headers;
 *   - waiting: the futex word and the counts of sleeping / parked receivers.
 * A receiver never reads tail: the message at a head is there when its seq
 * equals the head's expected seq (a sentinel's stale seq never does). */
typedef struct mpf_lnvc {
    uint32_t state, gen; /* LNVC_*; gen changes at every creation (stale ids) */
    int32_t id;          /* the id open returned for this incarnation */
    uint32_t n_send, n_fcfs, n_bcast;
    uint32_t
        senders_died; /* no sender left, and the last one to go died (reaped): MPF_ENOSENDERS */
    _Atomic uint32_t broken; /* a receive-lock owner died: repair under both locks first */
    _Alignas(MPF_CACHE) mpf_lock_t slock;
    uint32_t tail;
    _Atomic uint32_t next_seq; /* seq the next message sent will get */
    uint32_t n_ready;          /* headers in ready[] */
    uint32_t ready[MPF_BATCH]; /* freed headers for the next sends' sentinels */
    _Alignas(MPF_CACHE) mpf_lock_t rlock;
    uint32_t front, front_seq; /* oldest message still needed (front_seq: its seq) */
    uint32_t fcfs_head, fcfs_seq;
    uint32_t n_freed;
    uint32_t freed[MPF_BATCH];                 /* headers freed by receives, not yet handed over */
    uint32_t line_tail, line_len, line_ticket; /* the FCFS line (mpf_line.c) */
    _Atomic uint32_t line_head; /* its first waiter (index + 1): on the receive side's line, as
                                   a send reads it only when line_asleep says someone sleeps */
    _Alignas(MPF_CACHE) _Atomic uint32_t
        handed; /* 1: handover[] holds MPF_BATCH headers for the send side */
    uint32_t handover[MPF_BATCH];
    _Alignas(MPF_CACHE) _Atomic uint32_t word; /* futex word: bumped by wakes and closes */
    _Atomic uint32_t sleepers;                 /* receivers asleep (or about to be) on word */
    _Atomic uint32_t parked;                   /* MPF_WAIT_LWP: processes parked (or about to be) */
    _Atomic uint32_t
        line_asleep; /* waiters of the FCFS line asleep (or about to be): a send then wakes the head */
    char name[MPF_NAME_MAX + 1];
} __attribute__((aligned(MPF_CACHE))) mpf_lnvc;

typedef struct mpf_region {
    _Atomic uint64_t magic; /* written last by the creator */
    uint32_t version, shared;
    uint64_t size;
    uint32_t max_lnvcs, max_procs, n_msgs, n_blocks;
    uint32_t block_size, max_message, send_waits, id_shift;
    uint32_t off_procs, off_lnvcs, off_conns, off_msgs, off_blocks;
    uint32_t n_waiters, off_waiters; /* the FCFS line's waiter table */
    _Atomic uint32_t reap_pending;
    _Atomic uint64_t recoveries;
    mpf_lock_t table_lock;
    _Alignas(MPF_CACHE) _Atomic uint64_t msg_free; /* tag << 32 | offset */
    _Atomic int64_t n_msg_free;
    _Alignas(MPF_CACHE) _Atomic uint64_t blk_free;
    _Atomic int64_t n_blk_free;
    _Alignas(MPF_CACHE) _Atomic uint32_t space_word; /* bumped when memory is freed */
    _Atomic uint32_t space_sleepers;
} mpf_region;

/* A receive parked on an LNVC (MPF_WAIT_LWP), on the receiver's stack.  A
 * send that finds it waiting for exactly the message it carries copies the
 * payload straight into `buf` and sets `got`: the receiver returns without
 * taking the LNVC lock again, and no header is queued. */
typedef struct mpf_lwp_waiter {
    struct mpf_lwp_waiter *next;
    mpd_proc *proc;
    void *buf;
    size_t cap;
    ssize_t got; /* length delivered, or -1: woken to look again */
    mpf_conn *conn;
    /* Several VPs: an FCFS receive is a member of the LNVC's line from its
     * first park until it is served or leaves (`line`, `listed`), asleep or
     * not; only the first member may take an FCFS message (mpf_lwp_may_take).
     * Whoever wakes a sleeper clears `asleep` (all under the list lock). */
    int line, listed, asleep;
} mpf_lwp_waiter;

/* Parked MPD processes waiting on one LNVC, oldest first.  With several VPs
 * `lock` guards the list (taken after the LNVC lock); on one VP nothing does. */
typedef struct mpf_lwpq {
    mpd_spinlock lock;
    mpf_lwp_waiter *head, *tail;
} mpf_lwpq;

struct mpf {
    mpf_region *r;
    char *base;
    size_t size;
    int shared, spin, wait;
    struct mpf_lwpq *lwpq; /* MPF_WAIT_LWP: parked receivers, one queue per LNVC slot */
};

#define MPF_AT(m, off) ((void *)((m)->base + (off)))
#define MPF_MSG(m, off) ((mpf_msg *)MPF_AT(m, off))
#define MPF_BLK(m, off) ((mpf_blk *)MPF_AT(m, off))

static inline mpf_lnvc *mpf_lnvc_at(mpf_t *m, uint32_t slot)
{
    return (mpf_lnvc *)MPF_AT(m, m->r->off_lnvcs) + slot;
}
static inline mpf_proc *mpf_proc_at(mpf_t *m, uint32_t pid)
{
    return (mpf_proc *)MPF_AT(m, m->r->off_procs) + pid;
}
static inline mpf_conn *mpf_conn_at(mpf_t *m, uint32_t slot, uint32_t pid)
{
    return (mpf_conn *)MPF_AT(m, m->r->off_conns) + (size_t)slot * m->r->max_procs + pid;
}
static inline mpf_waiter *mpf_waiter_at(mpf_t *m, uint32_t w) /* w: index + 1 */
{
    return (mpf_waiter *)MPF_AT(m, m->r->off_waiters) + (w - 1);
}
static inline uint32_t mpf_block_payload(const mpf_region *r)
{
    return r->block_size - MPF_BLK_HDR;
}

/* An LNVC id is slot | generation << id_shift (kept positive), so that stale
 * ids are detected; the live id is stored in the LNVC so a check is one compare. */
static inline int mpf_make_id(const mpf_region *r, uint32_t slot, uint32_t gen)
{
    return (int)((slot | gen << r->id_shift) & 0x7fffffffu);
}
static inline uint32_t mpf_id_slot(const mpf_region *r, int id)
{
    return (uint32_t)id & ((1u << r->id_shift) - 1);
}

static inline void mpf_msg_reset(mpf_msg *g)
{
    atomic_store_explicit(&g->next, 0, memory_order_relaxed);
    atomic_store_explicit(&g->seq, 0, memory_order_relaxed);
    g->refs = g->len = g->data = 0;
}

/* mpf_region.c: memory pools, waiting. */
uint32_t mpf_msg_alloc(mpf_t *m);
void mpf_msg_free(mpf_t *m, uint32_t off);                   /* also frees its data blocks */
int mpf_blocks_alloc(mpf_t *m, size_t len, uint32_t *first); /* chain for len bytes */
void mpf_blocks_free(mpf_t *m, uint32_t first);
void mpf_space_wait(mpf_t *m, int pid, uint32_t observed);
/* A wake found nobody asleep although a count said so: after a few, reap
 * (a participant may have died counted asleep). */
void mpf_futile_wake(mpf_t *m);
/* MPF_WAIT_LWP on a runtime with one VP: only MPD processes of one OS thread
 * touch the instance and they switch only where they block, so locks and
 * waiter counts need no atomic read-modify-write (as the runtime's own fast paths). */
#define MPF_SOLO(m) ((m)->lwpq && mpd__mode_one_vp())
/* An MPF_WAIT_LWP instance serves MPD processes only (its locks may be plain
 * stores and its waiters are parked processes a thread could not wake):
 * anything else calling it gets MPF_ENOTSUP instead of a silent race. */
static inline int mpf_caller_ok(const mpf_t *m)
{
    return !m->lwpq || mpd_self() ? 0 : -MPF_ENOTSUP;
}

/* mpf_lock.c: owner-pid locks with dead-owner takeover.  The uncontended paths
 * are inline: a send or receive takes and releases one lock. */
#define MPF_LOCK_WAITERS 0x80000000u
extern _Atomic uint32_t mpf__self_pid; /* getpid(), cleared in a forked child */
uint32_t mpf_self_slow(void);
int mpf_lock_slow(mpf_t *m, mpf_lock_t *l, uint32_t self); /* 1: taken over from a dead owner */
void mpf_lock_wake(mpf_t *m, mpf_lock_t *l);
void mpf_lnvc_recovered(mpf_t *m,
                        mpf_lnvc *l); /* after a takeover: repair, count, mark for reaping */

static inline uint32_t mpf_self(void)
{
    uint32_t p = atomic_load_explicit(&mpf__self_pid, memory_order_relaxed);
    return p ? p : mpf_self_slow();
}
/* Returns 0 when acquired normally, 1 when taken over from a dead owner. */
static inline int mpf_lock_acquire(mpf_t *m, mpf_lock_t *l)
{
    if (MPF_SOLO(m)) {
        atomic_store_explicit(l, 1, memory_order_relaxed);
        return 0;
    }
    uint32_t self = mpf_self(), free_ = 0;
    if (atomic_compare_exchange_strong_explicit(l, &free_, self, memory_order_acquire,
                                                memory_order_relaxed))
        return 0;
    return mpf_lock_slow(m, l, self);
}
static inline void mpf_lock_release(mpf_t *m, mpf_lock_t *l)
{
    if (MPF_SOLO(m))
        atomic_store_explicit(l, 0, memory_order_relaxed);
    else if (atomic_exchange_explicit(l, 0, memory_order_release) & MPF_LOCK_WAITERS)
        mpf_lock_wake(m, l);
}
#define mpf_unlock(m, l) mpf_lock_release(m, l)
void mpf_lnvc_recover_send(mpf_t *m, mpf_lnvc *l); /* slock taken over: repair under both locks */
void mpf_lnvc_recover_recv(
    mpf_t *m, mpf_lnvc *l); /* rlock taken over or broken: returns holding rlock, repaired */
/* The send lock (sends).  Repairs the LNVC first if an owner died. */
static inline void mpf_lock_send(mpf_t *m, mpf_lnvc *l)
{
    if (mpf_lock_acquire(m, &l->slock))
        mpf_lnvc_recover_send(m, l);
}
/* The receive lock (receives). */
static inline void mpf_lock_recv(mpf_t *m, mpf_lnvc *l)
{
    if (mpf_lock_acquire(m, &l->rlock) || atomic_load_explicit(&l->broken, memory_order_relaxed))
        mpf_lnvc_recover_recv(m, l);
}
/* Both (open, close, check, repair): send lock first. */
void mpf_lock_lnvc(mpf_t *m, mpf_lnvc *l);
static inline void mpf_unlock_lnvc(mpf_t *m, mpf_lnvc *l)
{
    mpf_unlock(m, &l->rlock);
    mpf_unlock(m, &l->slock);
}
int mpf_lock_table(mpf_t *m);
void mpf_futex_wait(mpf_t *m, _Atomic uint32_t *word, uint32_t observed);
void mpf_futex_wait_ns(mpf_t *m, _Atomic uint32_t *word, uint32_t observed, long long ns);
int mpf_futex_wake_all(mpf_t *m, _Atomic uint32_t *word); /* number woken */
int mpf_os_pid_alive(int32_t pid);

/* Every operation but open: pid must belong to the calling OS process (open
 * claimed it): a stale id, or another process's, is refused.  One load. */
static inline int mpf_check_owner(mpf_t *m, int pid)
{
    if (!m->shared)
        return 0; /* in-process: one OS process */
    int32_t os = atomic_load_explicit(&mpf_proc_at(m, (uint32_t)pid)->os_pid, memory_order_relaxed);
    if (__builtin_expect(os == (int32_t)mpf_self(), 1))
        return 0;
    return os == 0 ? -MPF_ENOTCONN : -MPF_EBUSYPID;
}

/* mpf_lnvc.c: the LNVC table, connections, repair and reaping. */
void mpf_lnvc_repair(mpf_t *m, mpf_lnvc *l); /* both LNVC locks held, an owner died */
void mpf_table_repair(mpf_t *m);             /* table lock held, owner died */
void mpf_lnvc_pop_front(mpf_t *m, mpf_lnvc *l);
void mpf_lnvc_read_done(mpf_t *m, mpf_lnvc *l,
                        uint32_t at);        /* rlock: one reader finished with message at */
void mpf_lnvc_notify(mpf_t *m, mpf_lnvc *l); /* bump word, wake sleepers */
uint32_t mpf_lnvc_take_header(mpf_t *m, mpf_lnvc *l); /* slock: a header freed by receives, or 0 */
int mpf_reap_locked(mpf_t *m);
/* A message is there (published) once its seq is the one its reader expects. */
static inline int mpf_published(mpf_t *m, uint32_t at, uint32_t seq)
{
    return atomic_load_explicit(&MPF_MSG(m, at)->seq, memory_order_acquire) == seq;
}
/* After an operation: close dead participants' connections if a recovery asked for it. */
static inline void mpf_maybe_reap(mpf_t *m)
{
    if (m->shared && atomic_load_explicit(&m->r->reap_pending, memory_order_relaxed))
        mpf_reap(m);
}

/* mpf_wait.c: blocking a receiver until its LNVC changes. */
/* Returns once something may have changed, or after at most max_ns (0: the
 * default bound) of sleep.  c is the caller's connection (its asleep flag). */
void mpf_wait_change(mpf_t *m, mpf_lnvc *l, mpf_conn *c, uint32_t observed, uint32_t sentinel,
                     uint32_t seq, long long max_ns);
/* rlock held, nothing at head (seq expected there); returns with it released,
 * once woken (MPF_WAIT_LWP, from a process). */
int mpf_wait_lwp(mpf_t *m, mpf_lnvc *l, mpf_conn *c, uint32_t head, uint32_t seq, void *buf,
                 size_t cap, ssize_t *got, mpf_lwp_waiter *w, int turn);
/* The LWP line (several VPs; rlock held): may w (a member, or a receive not in
 * line) take the next FCFS message?  w leaves the line; the next member is
 * woken if a message waits for it (or always, with `pass`: w leaves unserved). */
int mpf_lwp_may_take(mpf_t *m, mpf_lnvc *l, mpf_lwp_waiter *w);
void mpf_lwp_leave(mpf_t *m, mpf_lnvc *l, mpf_lwp_waiter *w, int pass);
void mpf_lwp_wake_all(mpf_t *m, mpf_lnvc *l); /* a close: every parked receive looks again */
/* Send, both LNVC locks held: hand a short message straight to a parked receive (1) or not (0). */
int mpf_lwp_deliver(mpf_t *m, mpf_lnvc *l, const void *data, size_t len);
void mpf_wake_sleepers(mpf_t *m, mpf_lnvc *l);

/* mpf_line.c: blocked FCFS receives in arrival order (waiter w: index + 1). */
uint32_t mpf_line_join(mpf_t *m, mpf_lnvc *l);            /* rlock: 0 if the table is full */
void mpf_line_leave(mpf_t *m, mpf_lnvc *l, uint32_t w);   /* rlock */
int mpf_line_may_take(mpf_t *m, mpf_lnvc *l, uint32_t w); /* rlock */
void mpf_line_wait(mpf_t *m, mpf_lnvc *l, uint32_t w, int *spun,
                   long long max_ns); /* rlock, released */
void mpf_line_rearm(mpf_t *m, mpf_lnvc *l,
                    uint32_t w); /* rlock, w in line, before it looks again */
void mpf_line_wake_head(mpf_t *m, mpf_lnvc *l);
void mpf_line_wake_all(mpf_t *m, mpf_lnvc *l); /* both locks */
void mpf_line_reset(mpf_lnvc *l);
void mpf_line_repair(mpf_t *m, mpf_lnvc *l); /* both locks */
void mpf_line_reap(mpf_t *m);                /* table lock */
/* After a send linked its message, or a close: wake whoever waits, if anyone. */
static inline void mpf_wake_waiters(mpf_t *m, mpf_lnvc *l)
{
    if ((m->lwpq && atomic_load_explicit(&l->parked, memory_order_seq_cst)) ||
        atomic_load_explicit(&l->sleepers, memory_order_seq_cst))
        mpf_wake_sleepers(m, l);
    if (atomic_load_explicit(&l->line_asleep, memory_order_seq_cst))
        mpf_line_wake_head(m, l);
}
int mpf_wait_lwp_yield(
    mpf_t *m, int pid,
    uint32_t observed); /* MPD process: wait for space without stopping the VP, return 1 */
int mpf_lwp_setup(mpf_t *m);
void mpf_lwp_free(mpf_t *m);

#endif
