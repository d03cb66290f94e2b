/* term.c: when does a distributed program end?  When every vm is idle and
 * no message is on its way: Mattern's four-counter method, with rank 0 as
 * the initiator.
 *
 * Every process counts the basic messages it sent and received (comm.c;
 * control messages are not counted).  Rank 0, once idle itself, sends a
 * wave of PROBEs; each process answers at once with whether it is idle
 * (mpd_rt_idle_now: every VP asleep, nothing ready, no timer, no blocking
 * call; a process waiting for a reply is idle -- it waits for a message)
 * and its two counts.  Termination is decided when two consecutive waves
 * find every process idle, the same counts everywhere, and as many
 * messages received as sent: at the end of the first wave nothing changed
 * anywhere until the second, so at that instant every process was idle
 * with nothing in flight (docs/distributed.md gives the argument).
 *
 * Then the core of rank 0 is let go (its idle hook answers 0): the first
 * time it runs the final code of the main resource and the globals (which
 * may talk to other vms again), the second time the program ends and the
 * exit sequence (comm.c) has every vm report its blocked processes, newest
 * first, after the main vm's own.  Other processes keep their cores
 * waiting (the hook answers 1) until rank 0 ends them. */
#include <string.h>
#include <time.h>
#include "dist/dist.h"

_Atomic int dist_finish;
_Atomic int dist_ended;

static _Atomic int decided; /* rank 0: termination decided, not consumed */
static int ndecisions;
static _Atomic int triggers;  /* rank 0: someone became idle */
static _Atomic int idle_note; /* others: tell rank 0 we are idle */
static int64_t note_since, wave_due;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* How long a process must stay idle before a wave (or a note) is worth it:
 * a program making remote calls goes idle between every call and reply. */
#define SETTLE_NS 1000000

static int idle_hook(void)
{
    if (dist_rank != 0)
        return atomic_load(&dist_finish) ? 0 : (atomic_store(&idle_note, 1), 1);
    int one = 1;
    if (atomic_compare_exchange_strong(&decided, &one, 0)) {
        if (++ndecisions >= 2)
            atomic_store(&dist_ended, 1);
        return 0; /* let the core quiesce */
    }
    atomic_store(&triggers, 1);
    return 1;
}

void dist_term_install(void)
{
    mpd_rt_set_idle_hook(idle_hook);
}

/* ---- rank 0: waves ----------------------------------------------------------- */

typedef struct snap {
    int idle;
    uint64_t sent, recv;
} snap;
static snap *cur, *prev;
static int prev_valid, wave_active, acks_left;
static uint32_t wave_no;

static void wave_start(void)
{
    if (!cur) {
        cur = calloc((size_t)dist_size, sizeof *cur);
        prev = calloc((size_t)dist_size, sizeof *prev);
        if (!cur || !prev)
            mpd_rts_fatal("out of memory");
    }
    wave_no++;
    wave_active = 1;
    cur[0].idle = mpd_rt_idle_now();
    cur[0].sent = atomic_load(&dist_nsent);
    cur[0].recv = atomic_load(&dist_nrecv);
    acks_left = dist_size - 1;
    for (int r = 1; r < dist_size; r++) {
        dmsg *m = dmsg_new(DM_PROBE, 0);
        m->aux = wave_no;
        dist_send_control(r, m);
    }
}

static void wave_end(void)
{
    wave_active = 0;
    int all_idle = 1;
    uint64_t s = 0, r = 0;
    for (int i = 0; i < dist_size; i++) {
        all_idle &= cur[i].idle;
        s += cur[i].sent;
        r += cur[i].recv;
    }
    if (all_idle && s == r) {
        if (prev_valid && !memcmp(prev, cur, (size_t)dist_size * sizeof *cur)) {
            prev_valid = 0;
            atomic_store(&decided, 1);
            mpd_rt_wake_idle(); /* the core asks its idle hook again */
            return;
        }
        memcpy(prev, cur, (size_t)dist_size * sizeof *cur);
        prev_valid = 1;
        wave_due = now_ns(); /* confirm with a second wave */
        atomic_store(&triggers, 1);
        return;
    }
    prev_valid = 0; /* someone will become idle and say so */
}

void dist_term_on_ack(dmsg *m, int src)
{
    if (dist_rank != 0 || !wave_active || m->aux != wave_no || src <= 0 || src >= dist_size)
        return;
    cur[src].idle = m->status == 1;
    cur[src].sent = m->tag >> 32;
    cur[src].recv = m->tag & 0xffffffffu;
    if (--acks_left == 0)
        wave_end();
}

void dist_term_on_idle(int src)
{
    (void)src;
    if (dist_rank == 0)
        atomic_store(&triggers, 1);
}

/* ---- every process ------------------------------------------------------------ */

void dist_term_on_probe(dmsg *m, int src)
{
    if (src != 0)
        return;
    dmsg *a = dmsg_new(DM_PROBE_ACK, 0);
    a->aux = m->aux;
    a->status = mpd_rt_idle_now();
    a->tag =
        (atomic_load(&dist_nsent) & 0xffffffffu) << 32 | (atomic_load(&dist_nrecv) & 0xffffffffu);
    dist_send_control(0, a);
}

void dist_term_poll(void)
{
    int64_t now = now_ns();
    if (dist_rank != 0) {
        if (atomic_load(&idle_note)) {
            if (!note_since)
                note_since = now;
            else if (now - note_since > SETTLE_NS) {
                atomic_store(&idle_note, 0);
                note_since = 0;
                if (mpd_rt_idle_now())
                    dist_send_control(0, dmsg_new(DM_IDLE, 0));
            }
        }
        return;
    }
    if (wave_active || atomic_load(&decided))
        return;
    if (atomic_load(&triggers)) {
        if (!wave_due)
            wave_due = now + SETTLE_NS;
        if (now >= wave_due) {
            atomic_store(&triggers, 0);
            wave_due = 0;
            if (mpd_rt_idle_now())
                wave_start();
            else
                prev_valid = 0;
        }
    }
}
