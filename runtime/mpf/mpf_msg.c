/* mpf_msg.c: message transfer -- send (copy in, append), receive (wait, copy out, release), check. */
#include <time.h>
#include <string.h>

#include "mpf_internal.h"

/* The LNVC named by id, if it is still the one the id was made for (checked
 * again under a lock by the caller). */
static int find_lnvc(mpf_t *m, int id, mpf_lnvc **out, uint32_t *slot)
{
    if (id < 0)
        return -MPF_EBADID;
    *slot = mpf_id_slot(m->r, id);
    if (*slot >= m->r->max_lnvcs)
        return -MPF_EBADID;
    *out = mpf_lnvc_at(m, *slot);
    return 0;
}
static inline int is_live(const mpf_lnvc *l, int id)
{
    return l->state == LNVC_LIVE && l->id == id;
}

static int check_args(mpf_t *m, int pid)
{
    if (!m)
        return -MPF_EINVAL;
    if (!(pid >= 0 && (uint32_t)pid < m->r->max_procs))
        return -MPF_EBADPID;
    int rc = mpf_caller_ok(m);
    return rc ? rc : mpf_check_owner(m, pid);
}

/* Message memory is exhausted: reap dead participants (their backlogs), or wait if asked to. */
static int out_of_space(mpf_t *m, int pid, int *tries)
{
    mpf_region *r = m->r;
    if (m->shared && (*tries)++ == 0 && mpf_reap(m) > 0)
        return 0;
    if (!r->send_waits)
        return -MPF_ENOSPACE;
    uint32_t observed = atomic_load(&r->space_word);
    if (mpf_wait_lwp_yield(m, pid, observed))
        return 0; /* an MPD process lets the receivers run instead */
    mpf_space_wait(m, pid, observed);
    return 0;
}

/* Memory is short: give the headers the receive side is collecting back to the shared stack. */
static int flush_freed(mpf_t *m, mpf_lnvc *l)
{
    mpf_lock_recv(m, l);
    uint32_t n = l->n_freed;
    for (uint32_t i = 0; i < n; i++)
        mpf_msg_free(m, l->freed[i]);
    l->n_freed = 0;
    mpf_unlock(m, &l->rlock);
    return n > 0;
}

static void copy_to_blocks(mpf_t *m, uint32_t b, const unsigned char *src, size_t len)
{
    uint32_t pay = mpf_block_payload(m->r);
    for (size_t done = 0; done < len;
         done += pay, b = atomic_load_explicit(&MPF_BLK(m, b)->next, memory_order_relaxed))
        memcpy(MPF_BLK(m, b)->bytes, src + done, len - done < pay ? len - done : pay);
}

static void copy_from_msg(mpf_t *m, const mpf_msg *g, unsigned char *dst)
{
    if (g->len <= MPF_INLINE) {
        memcpy(dst, g->inl, g->len);
        return;
    }
    uint32_t pay = mpf_block_payload(m->r), b = g->data;
    for (size_t done = 0; done < g->len;
         done += pay, b = atomic_load_explicit(&MPF_BLK(m, b)->next, memory_order_relaxed))
        memcpy(dst + done, MPF_BLK(m, b)->bytes, g->len - done < pay ? g->len - done : pay);
}

/* ---- MPF_WAIT_LWP on one VP: the paths of a short message to a parked receive ----
 * Only MPD processes of one OS thread touch such an instance and they switch only
 * where they block, so nothing can run between two of these loads and stores:
 * the locks (plain stores there) are left out.  Anything unusual -- a bad argument,
 * nobody parked, a message that must be queued -- returns 1 and takes the general
 * path, which checks and reports it. */
static int solo_handoff(mpf_t *m, int pid, int id, const void *buf, size_t len)
{
    const mpf_region *r = m->r;
    if ((uint32_t)pid >= r->max_procs || id < 0 || len > MPF_INLINE || !mpd_self())
        return 1;
    uint32_t slot = mpf_id_slot(r, id);
    if (slot >= r->max_lnvcs)
        return 1;
    mpf_lnvc *l = mpf_lnvc_at(m, slot);
    if (!atomic_load_explicit(&l->parked, memory_order_relaxed) || !is_live(l, id) ||
        !mpf_conn_at(m, slot, (uint32_t)pid)->send || l->n_bcast + (l->n_fcfs > 0) != 1)
        return 1;
    int proto = l->n_fcfs ? MPF_FCFS : MPF_BROADCAST;
    mpf_lwpq *q = &m->lwpq[slot];
    mpf_lwp_waiter *prev = NULL, *w = q->head;
    for (; w; prev = w, w = w->next)
        if (w->conn->recv == proto)
            break;
    if (!w || len > w->cap || (proto == MPF_FCFS ? l->fcfs_head : w->conn->head) != l->tail)
        return 1;
    if (prev)
        prev->next = w->next;
    else
        q->head = w->next;
    if (q->tail == w)
        q->tail = prev;
    if (len)
        memcpy(w->buf, buf, len);
    w->got = (ssize_t)len;
    atomic_store_explicit(&l->parked, atomic_load_explicit(&l->parked, memory_order_relaxed) - 1,
                          memory_order_relaxed);
    mpd_unpark(w->proc);
    return 0;
}

int mpf_message_send(mpf_t *m, int pid, int id, const void *buf, size_t len)
{
    if (m && MPF_SOLO(m) && (buf || !len) && !solo_handoff(m, pid, id, buf, len))
        return 0;
    int rc = check_args(m, pid), tries = 0;
    if (rc)
        return rc;
    if (!buf && len)
        return -MPF_EINVAL;
    if (len > m->r->max_message)
        return -MPF_ETOOLONG;
    /* Long payloads are copied into private blocks before locking. */
    uint32_t fresh = 0, data = 0;
    int fresh_alloc = 0;
    if (len > MPF_INLINE) {
        while (mpf_blocks_alloc(m, len, &data))
            if ((rc = out_of_space(m, pid, &tries)))
                return rc;
        copy_to_blocks(m, data, buf, len);
    }
    mpf_lnvc *l;
    uint32_t slot;
    if ((rc = find_lnvc(m, id, &l, &slot)))
        goto fail;
    for (;;) {
        mpf_lock_send(m, l);
        if (!is_live(l, id)) {
            mpf_unlock(m, &l->slock);
            rc = -MPF_EBADID;
            goto fail;
        }
        if (!mpf_conn_at(m, slot, (uint32_t)pid)->send) {
            mpf_unlock(m, &l->slock);
            rc = -MPF_ENOTCONN;
            goto fail;
        }
        if (fresh)
            break;
        /* A receive parked for exactly this message takes it directly (it uses no seq). */
        if (m->lwpq && len <= MPF_INLINE &&
            atomic_load_explicit(&l->parked, memory_order_relaxed)) {
            mpf_lock_acquire(m, &l->rlock); /* in-process: no dead owners */
            int done = mpf_lwp_deliver(m, l, buf, len);
            mpf_unlock(m, &l->rlock);
            if (done) {
                mpf_unlock(m, &l->slock);
                return 0;
            }
        }
        /* The usual case: a header freed by receives.  It is not written here:
         * its next link and seq are never read while it is the sentinel (its
         * stale seq is an older message's, never next_seq), and data is 0. */
        if ((fresh = mpf_lnvc_take_header(m, l)))
            break;
        mpf_unlock(m, &l->slock);
        /* Sends leave max_lnvcs headers in reserve so that opening a conversation
         * (which needs one sentinel) does not fail because traffic filled memory. */
        int flushed = 0;
        while (atomic_load_explicit(&m->r->n_msg_free, memory_order_relaxed) <=
                   (int64_t)m->r->max_lnvcs ||
               !(fresh = mpf_msg_alloc(m))) {
            /* Headers this LNVC's receives freed but have not handed over yet count as free. */
            if (!flushed++ && flush_freed(m, l))
                continue;
            if ((rc = out_of_space(m, pid, &tries)))
                goto fail;
        }
        fresh_alloc = 1;
    }
    mpf_msg *s = MPF_MSG(m, l->tail);
    uint32_t seq = atomic_load_explicit(&l->next_seq, memory_order_relaxed);
    /* A new header gets an old seq, like a recycled one: never next_seq, now or after this send. */
    if (fresh_alloc)
        atomic_store_explicit(&MPF_MSG(m, fresh)->seq, seq - 1, memory_order_relaxed);
    s->len = (uint32_t)len;
    if (len <= MPF_INLINE)
        memcpy(s->inl, buf, len);
    else
        s->data = data;
    uint32_t readers = l->n_bcast + (l->n_fcfs > 0);
    s->refs = readers ? readers : MPF_PENDING;
    atomic_store_explicit(&s->next, fresh, memory_order_relaxed);
    /* Publish: seq last (it is what a receiver looks at), then move the tail,
     * then next_seq (repair relies on this order).  next_seq against `sleepers`
     * (both sequentially consistent) keeps a sleeper from missing it. */
    if (MPF_SOLO(
            m)) { /* one OS thread: no fence (spelled out: a memory order held in a variable compiles as seq_cst) */
        atomic_store_explicit(&s->seq, seq, memory_order_relaxed);
        l->tail = fresh;
        atomic_store_explicit(&l->next_seq, seq + 1, memory_order_relaxed);
    } else {
        atomic_store_explicit(&s->seq, seq, memory_order_release);
        l->tail = fresh;
        atomic_store_explicit(&l->next_seq, seq + 1, memory_order_seq_cst);
    }
    mpf_unlock(m, &l->slock);
    mpf_wake_waiters(m, l);
    mpf_maybe_reap(m);
    return 0;
fail:
    if (fresh)
        mpf_msg_free(m, fresh);
    mpf_blocks_free(m, data);
    return rc;
}

/* A long message: keep a reference in the connection, copy without the lock,
 * then drop the reference.  If the connection was closed meanwhile (by another
 * thread of the same id), the close dropped it and the copy is not trusted. */
static ssize_t copy_unlocked(mpf_t *m, mpf_lnvc *l, mpf_conn *c, int id, uint32_t at, void *buf)
{
    mpf_msg *g = MPF_MSG(m, at);
    ssize_t len = g->len;
    c->holding = at;
    mpf_unlock(m, &l->rlock);
    copy_from_msg(m, g, buf);
    mpf_lock_recv(m, l);
    if (is_live(l, id) && c->holding == at) {
        c->holding = 0;
        mpf_lnvc_read_done(m, l, at);
    } else {
        len = -MPF_ECLOSED;
    }
    mpf_unlock(m, &l->rlock);
    mpf_maybe_reap(m);
    return len;
}

/* Under the receive lock only: the reading position (FCFS group's or the
 * BROADCAST receiver's own) and the seq of the message expected there. */
/* One VP, MPF_WAIT_LWP (see solo_handoff): read the next message, or park
 * until a send hands one over.  Returns its length, or -1 to take the general
 * path (*waited says whether we parked). */
static ssize_t solo_park(mpf_t *m, int pid, int id, void *buf, size_t cap, int *waited)
{
    const mpf_region *r = m->r;
    mpd_proc *self;
    if ((uint32_t)pid >= r->max_procs || id < 0 || (!buf && cap) || !(self = mpd_self()))
        return -1;
    uint32_t slot = mpf_id_slot(r, id);
    if (slot >= r->max_lnvcs)
        return -1;
    mpf_lnvc *l = mpf_lnvc_at(m, slot);
    mpf_conn *c = mpf_conn_at(m, slot, (uint32_t)pid);
    if (!is_live(l, id) || !c->recv || atomic_load_explicit(&l->broken, memory_order_relaxed))
        return -1;
    int fcfs = c->recv == MPF_FCFS;
    uint32_t *headp = fcfs ? &l->fcfs_head : &c->head, *seqp = fcfs ? &l->fcfs_seq : &c->head_seq;
    uint32_t at = *headp;
    if (mpf_published(m, at, *seqp)) {
        mpf_msg *g = MPF_MSG(m, at);
        ssize_t len = g->len;
        if ((size_t)len > cap)
            return -1; /* the general path reports it */
        *headp = atomic_load_explicit(&g->next, memory_order_relaxed);
        ++*seqp;
        copy_from_msg(m, g, buf);
        mpf_lnvc_read_done(m, l, at);
        return len;
    }
    if (l->senders_died && l->n_send == 0)
        return -1; /* the general path says MPF_ENOSENDERS */
    mpf_lwpq *q = &m->lwpq[slot];
    mpf_lwp_waiter w = {.proc = self, .buf = buf, .cap = cap, .got = -1, .conn = c};
    if (q->tail)
        q->tail->next = &w;
    else
        q->head = &w;
    q->tail = &w;
    atomic_store_explicit(&l->parked, atomic_load_explicit(&l->parked, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    mpd_park(NULL);
    *waited = 1;
    return w.got;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* block: 0 try, 1 wait, 2 wait until deadline (CLOCK_MONOTONIC ns). */
static ssize_t receive(mpf_t *m, int pid, int id, void *buf, size_t cap, int block,
                       long long deadline)
{
    int waited = 0, idle = 0;
    if (m && MPF_SOLO(m) && block == 1) {
        ssize_t got = solo_park(m, pid, id, buf, cap, &waited);
        if (got >= 0)
            return got;
    }
    int rc = check_args(m, pid);
    if (rc)
        return rc;
    if (!buf && cap)
        return -MPF_EINVAL;
    mpf_lnvc *l;
    uint32_t slot;
    if ((rc = find_lnvc(m, id, &l, &slot)))
        return rc;
    mpf_lock_recv(m, l);
    if (!is_live(l, id)) {
        mpf_unlock(m, &l->rlock);
        return waited ? -MPF_ECLOSED : -MPF_EBADID;
    }
    mpf_conn *c = mpf_conn_at(m, slot, (uint32_t)pid);
    uint32_t line = 0; /* our place in the FCFS line, once we wait there */
    mpf_lwp_waiter lw; /* MPF_WAIT_LWP: our parked receive (and place in its FCFS line) */
    lw.listed = 0;     /* the rest is set when it parks */
    int spun = 0;
    for (;;) {
        if (!c->recv) {
            rc = waited ? -MPF_ECLOSED : -MPF_ENOTCONN;
            break;
        }
        int fcfs = c->recv == MPF_FCFS;
        uint32_t *headp = fcfs ? &l->fcfs_head : &c->head,
                 *seqp = fcfs ? &l->fcfs_seq : &c->head_seq;
        uint32_t at = *headp, seq = *seqp;
        if (line)
            mpf_line_rearm(m, l, line);
        if (mpf_published(m, at, seq) && (!fcfs || (mpf_line_may_take(m, l, line) &&
                                                    (!m->lwpq || mpf_lwp_may_take(m, l, &lw))))) {
            mpf_msg *g = MPF_MSG(m, at);
            if (g->len > cap) {
                rc = -MPF_EMSGSIZE;
                break;
            }
            ssize_t len = g->len;
            *headp = atomic_load_explicit(&g->next, memory_order_relaxed);
            *seqp = seq + 1;
            if (line)
                mpf_line_leave(
                    m, l, line); /* served: the next in line is woken if another message waits */
            if (lw.listed)
                mpf_lwp_leave(m, l, &lw, 0); /* the same in the LWP line */
            if (len > MPF_UNLOCKED_COPY && !MPF_SOLO(m))
                return copy_unlocked(m, l, c, id, at, buf);
            copy_from_msg(m, g, buf);
            mpf_lnvc_read_done(m, l, at);
            mpf_unlock(m, &l->rlock);
            mpf_maybe_reap(m);
            return len;
        }
        if (!block) {
            rc = -MPF_EAGAIN;
            break;
        }
        /* Nothing to read and the senders died: say so rather than wait for
         * ever (n_send changes under both locks; we hold one).  Senders that
         * closed may come back: a conversation outlives its members. */
        if (l->senders_died && l->n_send == 0) {
            rc = -MPF_ENOSENDERS;
            break;
        }
        long long left = 0;
        if (block == 2 && (left = deadline - now_ns()) <= 0) {
            rc = -MPF_ETIMEDOUT;
            break;
        }
        ssize_t got;
        int how = block == 1 ? mpf_wait_lwp(m, l, c, at, seq, buf, cap, &got, &lw,
                                            mpf_published(m, at, seq))
                             : 0;
        if (how == 2)
            return got; /* a send handed it over */
        /* An FCFS receive (threads, processes, MPD processes on a shared
         * instance) waits in line; without a free waiter slot it waits unordered. */
        if (how == 0 && fcfs && !m->lwpq && (line || (line = mpf_line_join(m, l)))) {
            mpf_line_wait(m, l, line, &spun, left);
            if (m->shared && !spun && ++idle % 4 == 0)
                mpf_reap(m);
            how = 1;
        }
        if (how == 0) {
            uint32_t observed = atomic_load_explicit(&l->word, memory_order_relaxed);
            mpf_unlock(m, &l->rlock);
            if (block == 2 && m->lwpq)
                mpd_yield(); /* timed, MPF_WAIT_LWP: look again after the others ran */
            else
                mpf_wait_change(m, l, c, observed, at, seq,
                                left); /* not an MPD process: wait like a thread */
            /* Long quiet waits look for dead participants now and then: a
             * sender that died is closed by the reap, which ends this wait. */
            if (m->shared && ++idle % 4 == 0)
                mpf_reap(m);
        }
        waited = 1;
        mpf_lock_recv(m, l);
        if (!is_live(l, id)) {
            rc = -MPF_ECLOSED;
            break;
        }
    }
    if (line)
        mpf_line_leave(m, l, line);
    if (lw.listed)
        mpf_lwp_leave(m, l, &lw, 1); /* unserved: the next member looks */
    mpf_unlock(m, &l->rlock);
    return rc;
}

ssize_t mpf_message_receive(mpf_t *m, int pid, int id, void *buf, size_t cap)
{
    return receive(m, pid, id, buf, cap, 1, 0);
}

ssize_t mpf_message_try_receive(mpf_t *m, int pid, int id, void *buf, size_t cap)
{
    return receive(m, pid, id, buf, cap, 0, 0);
}

ssize_t mpf_message_timed_receive(mpf_t *m, int pid, int id, void *buf, size_t cap,
                                  long long timeout_ns)
{
    if (timeout_ns < 0)
        return -MPF_EINVAL;
    return receive(m, pid, id, buf, cap, 2, now_ns() + timeout_ns);
}

int mpf_check_receive(mpf_t *m, int pid, int id, size_t *next_len)
{
    int rc = check_args(m, pid);
    if (rc)
        return rc;
    mpf_lnvc *l;
    uint32_t slot;
    if ((rc = find_lnvc(m, id, &l, &slot)))
        return rc;
    mpf_lock_lnvc(m, l);
    mpf_conn *c = mpf_conn_at(m, slot, (uint32_t)pid);
    if (!is_live(l, id)) {
        rc = -MPF_EBADID;
    } else if (!c->recv) {
        rc = -MPF_ENOTCONN;
    } else {
        int fcfs = c->recv == MPF_FCFS;
        uint32_t head = fcfs ? l->fcfs_head : c->head, seq = fcfs ? l->fcfs_seq : c->head_seq;
        uint32_t n =
            atomic_load_explicit(&l->next_seq, memory_order_relaxed) - seq; /* modulo 2^32 */
        rc = n > 0x7fffffff ? 0x7fffffff : (int)n;
        if (n && next_len)
            *next_len = MPF_MSG(m, head)->len;
    }
    mpf_unlock_lnvc(m, l);
    return rc;
}
