/* mpf_lnvc.c: the conversation table -- open and close by name, deletion, repair after a dead lock owner, reaping. */
#include <string.h>
#include <unistd.h>

#include "mpf_internal.h"

enum {
    ROLE_SEND = 0,
    ROLE_RECV = 3
}; /* roles: ROLE_SEND, MPF_FCFS, MPF_BROADCAST; ROLE_RECV = either */

static int check_pid(mpf_t *m, int pid)
{
    return pid >= 0 && (uint32_t)pid < m->r->max_procs ? mpf_caller_ok(m) : -MPF_EBADPID;
}

void mpf_lnvc_notify(mpf_t *m, mpf_lnvc *l)
{
    atomic_fetch_add_explicit(&l->word, 1, memory_order_seq_cst);
    mpf_lwp_wake_all(m, l); /* every parked receive too, members of the LWP line included */
    mpf_wake_waiters(m, l);
    mpf_line_wake_all(m, l); /* everyone in line looks again, not only its head */
}

/* Receive side: a header nobody needs goes to the send side, MPF_BATCH at a
 * time through `handover` (one line crossing per batch, not per message), or
 * to the shared free stack when the send side has not taken the last batch. */
static void recycle(mpf_t *m, mpf_lnvc *l, uint32_t off)
{
    l->freed[l->n_freed++] = off;
    if (l->n_freed < MPF_BATCH)
        return;
    l->n_freed = 0;
    if (atomic_load_explicit(&l->handed, memory_order_acquire) ==
        0) { /* the send side is done reading it */
        memcpy(l->handover, l->freed, sizeof l->freed);
        atomic_store_explicit(&l->handed, 1, memory_order_release);
    } else {
        for (uint32_t i = 0; i < MPF_BATCH; i++)
            mpf_msg_free(m, l->freed[i]);
    }
}

/* Send side: a header for the next sentinel, from the receive side's batches. */
uint32_t mpf_lnvc_take_header(mpf_t *m, mpf_lnvc *l)
{
    (void)m;
    if (l->n_ready)
        return l->ready[--l->n_ready];
    if (atomic_load_explicit(&l->handed, memory_order_acquire) == 0)
        return 0;
    memcpy(l->ready, l->handover, sizeof l->ready);
    l->n_ready = MPF_BATCH;
    atomic_store_explicit(&l->handed, 0, memory_order_release);
    return l->ready[--l->n_ready];
}

/* Unlink the front message (nobody needs it) and recycle its header. */
static void drop_front(mpf_t *m, mpf_lnvc *l)
{
    uint32_t old = l->front;
    mpf_msg *g = MPF_MSG(m, old);
    l->front = atomic_load_explicit(&g->next, memory_order_relaxed);
    l->front_seq++;
    if (g->data) { /* a short message's header is left unwritten (its line stays where it is) */
        mpf_blocks_free(m, g->data);
        g->data = 0;
    }
    recycle(m, l, old);
}

/* Free every message at the front that no reader needs any more.  The
 * receive lock suffices: the sentinel is never published, so it stops the walk. */
void mpf_lnvc_pop_front(mpf_t *m, mpf_lnvc *l)
{
    while (mpf_published(m, l->front, l->front_seq) && MPF_MSG(m, l->front)->refs == 0)
        drop_front(m, l);
}

/* A reader is done with message `at`.  The usual case -- the last reader of the
 * oldest message -- frees it without writing its header: the receiver only
 * reads the header's lines, so they need not travel back before the next send. */
void mpf_lnvc_read_done(mpf_t *m, mpf_lnvc *l, uint32_t at)
{
    mpf_msg *g = MPF_MSG(m, at);
    if (g->refs == 1 && at == l->front)
        drop_front(m, l);
    else if (--g->refs)
        return;
    mpf_lnvc_pop_front(m, l);
}

/* A reader leaves: it no longer holds a reference to its unread backlog. */
static void release_backlog(mpf_t *m, mpf_lnvc *l, uint32_t head)
{
    for (uint32_t n = head; n && n != l->tail;) {
        mpf_msg *g = MPF_MSG(m, n);
        if (g->refs && g->refs != MPF_PENDING)
            g->refs--;
        n = atomic_load_explicit(&g->next, memory_order_relaxed);
    }
}

/* The first receiver of a conversation takes over what was sent while nobody received. */
static void claim_pending(mpf_t *m, mpf_lnvc *l)
{
    for (uint32_t n = l->front; n != l->tail;) {
        mpf_msg *g = MPF_MSG(m, n);
        g->refs = 1;
        n = atomic_load_explicit(&g->next, memory_order_relaxed);
    }
}

static int add_role(mpf_t *m, mpf_lnvc *l, mpf_conn *c, int role)
{
    if (role == ROLE_SEND) {
        if (c->send)
            return -MPF_EALREADY;
        c->send = 1;
        l->n_send++;
        l->senders_died = 0;
        return 0;
    }
    if (c->recv)
        return c->recv == role ? -MPF_EALREADY : -MPF_EPROTOCOL;
    int first = l->n_fcfs + l->n_bcast == 0;
    if (first)
        claim_pending(m, l);
    uint32_t start = first ? l->front : l->tail;
    uint32_t start_seq =
        first ? l->front_seq : atomic_load_explicit(&l->next_seq, memory_order_relaxed);
    if (role == MPF_FCFS) {
        if (l->n_fcfs++ == 0)
            l->fcfs_head = start, l->fcfs_seq = start_seq;
    } else {
        l->n_bcast++;
        c->head = start;
        c->head_seq = start_seq;
    }
    c->recv = (uint8_t)role;
    return 0;
}

static int drop_role(mpf_t *m, mpf_lnvc *l, mpf_conn *c, int role)
{
    if (role == ROLE_SEND) {
        if (!c->send)
            return -MPF_ENOTCONN;
        c->send = 0;
        if (--l->n_send == 0)
            mpf_lnvc_notify(m, l); /* waiting receivers look again (MPF_ENOSENDERS) */
        return 0;
    }
    if (!c->recv)
        return -MPF_ENOTCONN;
    if (c->holding) { /* a copy in progress (or its owner died): its reference goes too */
        mpf_msg *g = MPF_MSG(m, c->holding);
        if (g->refs && g->refs != MPF_PENDING)
            g->refs--;
        c->holding = 0;
    }
    if (c->recv == MPF_FCFS) {
        if (--l->n_fcfs == 0) {
            release_backlog(m, l, l->fcfs_head);
            l->fcfs_head = 0;
        }
    } else {
        l->n_bcast--;
        release_backlog(m, l, c->head);
        c->head = 0;
    }
    c->recv = CONN_NONE;
    mpf_lnvc_pop_front(m, l);
    mpf_lnvc_notify(m, l); /* a receive of this pid blocked in another thread must notice */
    return 0;
}

/* Both locks held; the LNVC has no connection left. */
static void delete_lnvc(mpf_t *m, mpf_lnvc *l)
{
    l->state =
        LNVC_FREE;     /* first, so that a crash below leaks memory but leaves no dangling queue */
    mpf_line_reset(l); /* waiters still in line find the LNVC gone and only free their slots */
    uint32_t n = l->front, tail = l->tail;
    l->front = l->tail = l->fcfs_head = 0;
    for (uint32_t i = 0; i < l->n_ready; i++)
        mpf_msg_free(m, l->ready[i]);
    for (uint32_t i = 0; i < l->n_freed; i++)
        mpf_msg_free(m, l->freed[i]);
    if (atomic_load_explicit(&l->handed, memory_order_relaxed))
        for (uint32_t i = 0; i < MPF_BATCH; i++)
            mpf_msg_free(m, l->handover[i]);
    l->n_ready = l->n_freed = 0;
    atomic_store_explicit(&l->handed, 0, memory_order_relaxed);
    while (n) { /* the sentinel's own link is stale: stop there */
        uint32_t nx =
            n == tail ? 0 : atomic_load_explicit(&MPF_MSG(m, n)->next, memory_order_relaxed);
        mpf_msg_free(m, n);
        n = nx;
    }
}

static int lnvc_empty(const mpf_lnvc *l)
{
    return l->n_send + l->n_fcfs + l->n_bcast == 0;
}

/* Cross-process: an id belongs to one OS process at a time.  Table lock held. */
static int claim_pid(mpf_t *m, int pid)
{
    if (!m->shared)
        return 0;
    mpf_proc *p = mpf_proc_at(m, (uint32_t)pid);
    int32_t os = atomic_load(&p->os_pid),
            me = (int32_t)getpid(); /* not cached: handles survive fork() */
    if (os == me)
        return 0;
    if (os != 0 && mpf_os_pid_alive(os))
        return -MPF_EBUSYPID;
    if (os != 0)
        mpf_reap_locked(m);
    atomic_store(&p->os_pid, me);
    return 0;
}

static void release_pid(mpf_t *m, int pid)
{
    mpf_proc *p = mpf_proc_at(m, (uint32_t)pid);
    if (p->nconn)
        p->nconn--;
    if (p->nconn == 0)
        atomic_store(&p->os_pid, 0);
}

static int lock_table(mpf_t *m)
{
    int rc = mpf_lock_table(m);
    if (rc == 0 && m->shared && atomic_load(&m->r->reap_pending))
        mpf_reap_locked(m);
    return rc;
}

static int find_or_create(mpf_t *m, const char *name, uint32_t *slot, int *created)
{
    mpf_region *r = m->r;
    int free_slot = -1;
    *created = 0;
    for (uint32_t i = 0; i < r->max_lnvcs; i++) {
        mpf_lnvc *l = mpf_lnvc_at(m, i);
        if (l->state == LNVC_LIVE && strcmp(l->name, name) == 0) {
            *slot = i;
            return 0;
        }
        if (l->state == LNVC_FREE && free_slot < 0)
            free_slot = (int)i;
    }
    if (free_slot < 0)
        return -MPF_ENOLNVC;
    mpf_lnvc *l = mpf_lnvc_at(m, (uint32_t)free_slot);
    uint32_t s = mpf_msg_alloc(m);
    if (!s)
        return -MPF_ENOSPACE;
    mpf_lock_lnvc(m, l);
    atomic_store_explicit(&l->next_seq, 1, memory_order_relaxed); /* the sentinel's seq is 0 */
    l->front = l->tail = s;
    l->front_seq = 1;
    l->fcfs_head = l->fcfs_seq = 0;
    l->n_send = l->n_fcfs = l->n_bcast = 0;
    l->senders_died = 0;
    l->n_ready = l->n_freed = 0;
    /* A slot reused starts with no sleeper counted: a count left by a
     * participant that died asleep would make every send pay a futex call.
     * A live sleeper of the old incarnation finds its flag cleared and
     * does not uncount itself. */
    for (uint32_t p = 0; p < r->max_procs; p++)
        atomic_store_explicit(&mpf_conn_at(m, (uint32_t)free_slot, p)->asleep, 0,
                              memory_order_relaxed);
    atomic_store_explicit(&l->sleepers, 0, memory_order_relaxed);
    atomic_store_explicit(&l->handed, 0, memory_order_relaxed);
    mpf_line_reset(l);
    strcpy(l->name, name);
    l->gen++;
    l->id = mpf_make_id(m->r, (uint32_t)free_slot, l->gen);
    l->state = LNVC_LIVE;
    mpf_unlock_lnvc(m, l);
    *slot = (uint32_t)free_slot;
    *created = 1;
    return 0;
}

static int open_role(mpf_t *m, int pid, const char *name, int role)
{
    if (!m || !name)
        return -MPF_EINVAL;
    int rc = check_pid(m, pid);
    if (rc)
        return rc;
    size_t n = strlen(name);
    if (n == 0 || n > MPF_NAME_MAX)
        return -MPF_ENAME;
    if ((rc = lock_table(m)))
        return rc;
    uint32_t slot = 0;
    int created = 0;
    if ((rc = claim_pid(m, pid)) || (rc = find_or_create(m, name, &slot, &created)))
        goto out;
    mpf_lnvc *l = mpf_lnvc_at(m, slot);
    mpf_lock_lnvc(m, l);
    mpf_conn *c = mpf_conn_at(m, slot, (uint32_t)pid);
    int had = c->send || c->recv;
    rc = add_role(m, l, c, role);
    if (rc == 0) {
        if (!had)
            mpf_proc_at(m, (uint32_t)pid)->nconn++;
        rc = l->id;
    } else if (created) {
        delete_lnvc(m, l);
    }
    mpf_unlock_lnvc(m, l);
out:
    if (rc < 0 && mpf_proc_at(m, (uint32_t)pid)->nconn == 0 && m->shared)
        atomic_store(&mpf_proc_at(m, (uint32_t)pid)->os_pid, 0);
    mpf_unlock(m, &m->r->table_lock);
    return rc;
}

int mpf_open_send(mpf_t *m, int pid, const char *name)
{
    return open_role(m, pid, name, ROLE_SEND);
}

int mpf_open_receive(mpf_t *m, int pid, const char *name, int protocol)
{
    if (protocol != MPF_FCFS && protocol != MPF_BROADCAST)
        return -MPF_EINVAL;
    return open_role(m, pid, name, protocol);
}

static int close_role(mpf_t *m, int pid, int id, int role)
{
    if (!m)
        return -MPF_EINVAL;
    int rc = check_pid(m, pid);
    if (rc || (rc = mpf_check_owner(m, pid)))
        return rc;
    if (id < 0)
        return -MPF_EBADID;
    uint32_t slot = mpf_id_slot(m->r, id);
    if ((rc = lock_table(m)))
        return rc;
    if (slot >= m->r->max_lnvcs) {
        rc = -MPF_EBADID;
        goto out;
    }
    mpf_lnvc *l = mpf_lnvc_at(m, slot);
    mpf_lock_lnvc(m, l);
    if (l->state != LNVC_LIVE || l->id != id) {
        rc = -MPF_EBADID;
    } else {
        mpf_conn *c = mpf_conn_at(m, slot, (uint32_t)pid);
        rc = drop_role(m, l, c, role);
        if (rc == 0 && !c->send && !c->recv)
            release_pid(m, pid);
        if (rc == 0 && lnvc_empty(l))
            delete_lnvc(m, l);
    }
    mpf_unlock_lnvc(m, l);
out:
    mpf_unlock(m, &m->r->table_lock);
    return rc;
}

int mpf_close_send(mpf_t *m, int pid, int lnvc)
{
    return close_role(m, pid, lnvc, ROLE_SEND);
}
int mpf_close_receive(mpf_t *m, int pid, int lnvc)
{
    return close_role(m, pid, lnvc, ROLE_RECV);
}

/* ---- recovery ---- */

/* Is `node` on the queue front..tail?  (Used only by repair.) */
static int on_queue(mpf_t *m, mpf_lnvc *l, uint32_t node)
{
    uint32_t limit = m->r->n_msgs + 1;
    for (uint32_t n = l->front; n && limit--;
         n = atomic_load_explicit(&MPF_MSG(m, n)->next, memory_order_relaxed)) {
        if (n == node)
            return 1;
        if (n == l->tail)
            break;
    }
    return 0;
}

static void add_backlog_refs(mpf_t *m, mpf_lnvc *l, uint32_t head)
{
    for (uint32_t n = head; n && n != l->tail;
         n = atomic_load_explicit(&MPF_MSG(m, n)->next, memory_order_relaxed))
        MPF_MSG(m, n)->refs++;
}

/* The seq a reader at `n` expects (the tail's is next_seq).  Repair only. */
static uint32_t seq_at(mpf_t *m, mpf_lnvc *l, uint32_t n)
{
    return n == l->tail ? atomic_load_explicit(&l->next_seq, memory_order_relaxed)
                        : atomic_load_explicit(&MPF_MSG(m, n)->seq, memory_order_relaxed);
}

/* An LNVC lock's owner died inside a critical section (both locks are held now).  The queue links and the
 * connection table are always written in an order that keeps them usable; the
 * tail, the counters and the reference counts are derived from them again. */
void mpf_lnvc_repair(mpf_t *m, mpf_lnvc *l)
{
    if (l->state != LNVC_LIVE)
        return;
    uint32_t slot = (uint32_t)(l - mpf_lnvc_at(m, 0));
    /* A send publishes (seq), then moves the tail, then next_seq.  A tail already
     * published was filled by a sender that died before moving it. */
    uint32_t next_seq = atomic_load_explicit(&l->next_seq, memory_order_relaxed);
    mpf_msg *t = MPF_MSG(m, l->tail);
    if (atomic_load_explicit(&t->seq, memory_order_relaxed) == next_seq)
        l->tail = atomic_load_explicit(&t->next, memory_order_relaxed);
    uint32_t count = 0, last = 0, limit = m->r->n_msgs + 1;
    for (uint32_t n = l->front; n != l->tail && limit--;
         n = atomic_load_explicit(&MPF_MSG(m, n)->next, memory_order_relaxed)) {
        last = atomic_load_explicit(&MPF_MSG(m, n)->seq, memory_order_relaxed);
        count++;
    }
    if (count)
        atomic_store_explicit(&l->next_seq, last + 1, memory_order_relaxed);
    l->front_seq = seq_at(m, l, l->front);
    /* Headers on their way between the sides may have been half taken: leak
     * them rather than share one (a batch handed over but not taken is kept). */
    l->n_ready = l->n_freed = 0;
    l->n_send = l->n_fcfs = l->n_bcast = 0;
    for (uint32_t p = 0; p < m->r->max_procs; p++) {
        mpf_conn *c = mpf_conn_at(m, slot, p);
        l->n_send += c->send;
        if (c->recv == MPF_FCFS)
            l->n_fcfs++;
        if (c->recv == MPF_BROADCAST) {
            l->n_bcast++;
            if (!on_queue(m, l, c->head))
                c->head = l->tail;
            c->head_seq = seq_at(m, l, c->head);
        }
    }
    if (l->n_fcfs == 0)
        l->fcfs_head = 0;
    else if (!on_queue(m, l, l->fcfs_head))
        l->fcfs_head = l->tail;
    if (l->n_fcfs)
        l->fcfs_seq = seq_at(m, l, l->fcfs_head);
    int receivers = l->n_fcfs + l->n_bcast;
    for (uint32_t q = l->front; q != l->tail;
         q = atomic_load_explicit(&MPF_MSG(m, q)->next, memory_order_relaxed)) {
        MPF_MSG(m, q)->refs = receivers ? 0 : MPF_PENDING;
    }
    for (uint32_t p = 0; p < m->r->max_procs; p++) {
        mpf_conn *c = mpf_conn_at(m, slot, p);
        if (c->recv == MPF_BROADCAST)
            add_backlog_refs(m, l, c->head);
        if (c->holding && c->recv && on_queue(m, l, c->holding) && c->holding != l->tail)
            MPF_MSG(m, c->holding)->refs++;
        else
            c->holding = 0;
    }
    if (l->n_fcfs)
        add_backlog_refs(m, l, l->fcfs_head);
    mpf_lnvc_pop_front(m, l);
    mpf_line_repair(m, l);
    mpf_lnvc_notify(m, l);
}

/* The table lock's owner died: recount connections per id, drop half-made conversations. */
void mpf_table_repair(mpf_t *m)
{
    mpf_region *r = m->r;
    for (uint32_t p = 0; p < r->max_procs; p++)
        mpf_proc_at(m, p)->nconn = 0;
    for (uint32_t i = 0; i < r->max_lnvcs; i++) {
        mpf_lnvc *l = mpf_lnvc_at(m, i);
        mpf_lock_lnvc(m, l);
        if (l->state == LNVC_LIVE) {
            for (uint32_t p = 0; p < r->max_procs; p++) {
                mpf_conn *c = mpf_conn_at(m, i, p);
                if (c->send || c->recv)
                    mpf_proc_at(m, p)->nconn++;
            }
            if (lnvc_empty(l))
                delete_lnvc(m, l);
        }
        mpf_unlock_lnvc(m, l);
    }
    for (uint32_t p = 0; p < r->max_procs; p++)
        if (mpf_proc_at(m, p)->nconn == 0)
            atomic_store(&mpf_proc_at(m, p)->os_pid, 0);
}

/* Close every connection of ids whose OS process is gone.  Table lock held. */
int mpf_reap_locked(mpf_t *m)
{
    mpf_region *r = m->r;
    int closed = 0;
    atomic_store(&r->reap_pending, 0);
    if (!m->shared)
        return 0;
    mpf_line_reap(m); /* first: a dead receive in line must not hold up the live ones */
    int32_t me = (int32_t)getpid();
    for (uint32_t p = 0; p < r->max_procs; p++) {
        mpf_proc *pr = mpf_proc_at(m, p);
        int32_t os = atomic_load(&pr->os_pid);
        if (os == 0 || os == me || mpf_os_pid_alive(os))
            continue;
        if (atomic_exchange(&pr->space_asleep, 0))
            atomic_fetch_sub(&r->space_sleepers, 1); /* died asleep */
        for (uint32_t i = 0; i < r->max_lnvcs; i++) {
            mpf_lnvc *l = mpf_lnvc_at(m, i);
            mpf_lock_lnvc(m, l);
            mpf_conn *c = mpf_conn_at(m, i, p);
            if (atomic_exchange(&c->asleep, 0))
                atomic_fetch_sub(&l->sleepers, 1); /* died asleep */
            if (l->state == LNVC_LIVE && (c->send || c->recv)) {
                if (c->send) {
                    drop_role(m, l, c, ROLE_SEND), closed++;
                    if (l->n_send == 0)
                        l->senders_died = 1; /* its receivers must not wait for it */
                }
                if (c->recv)
                    drop_role(m, l, c, ROLE_RECV), closed++;
                if (lnvc_empty(l))
                    delete_lnvc(m, l);
            }
            mpf_unlock_lnvc(m, l);
        }
        pr->nconn = 0;
        atomic_store(&pr->os_pid, 0);
    }
    return closed;
}

int mpf_reap(mpf_t *m)
{
    if (!m)
        return -MPF_EINVAL;
    int rc = mpf_lock_table(m);
    if (rc)
        return rc;
    rc = mpf_reap_locked(m);
    mpf_unlock(m, &m->r->table_lock);
    return rc;
}
