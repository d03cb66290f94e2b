/* serve.c: requests from other virtual machines.
 *
 * The communication thread queues every request here and wakes the
 * listener, an MPD process of this vm that waits without counting as
 * blocked (mpd_ext_wait, visible = 0).  The listener never blocks on a
 * request: an invocation becomes a runtime-owned block delivered to its
 * op exactly as a local send or call would be (inv_deliver), so `in`,
 * `receive`, st, by and ?op see remote invocations as local ones; a call
 * is answered through MPD_INVF_REMOTE (dist_answer in remote.c) when the
 * proc ends, replies or forwards, or when an input statement finishes
 * with it.  Requests that may block (create, destroy, a new vm) get a
 * process of their own. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "dist/dist.h"

_Atomic uint32_t dist_home_vm;
int dist_home_machine;

typedef struct inbound {
    dmsg *m;
    mpd_invb *blk; /* its block, received apart (dmsg.blen), or NULL */
    int src;
    struct inbound *next;
} inbound;
static inbound *qhead, *qtail;
static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
/* Requests queued for the listener and not yet served: while any is, a
 * newer invocation is queued behind it too (one sender's invocations
 * reach an op in the order they were sent). */
static atomic_int unserved;
static mpd_ext listener_ev;

void dist_deliver_inbound(dmsg *m, int src, mpd_invb *blk)
{
    inbound *i = malloc(sizeof *i);
    if (!i)
        mpd_rts_fatal("out of memory");
    i->m = dist_msg_keep(m);
    i->blk = blk;
    i->src = src;
    i->next = NULL;
    atomic_fetch_add(&unserved, 1);
    pthread_mutex_lock(&qmu);
    if (qtail)
        qtail->next = i;
    else
        qhead = i;
    qtail = i;
    pthread_mutex_unlock(&qmu);
    mpd_ext_wake(&listener_ev);
}

static inbound *take(void)
{
    pthread_mutex_lock(&qmu);
    inbound *i = qhead;
    if (i) {
        qhead = i->next;
        if (!qhead)
            qtail = NULL;
    }
    pthread_mutex_unlock(&qmu);
    return i;
}

/* ---- replies ----------------------------------------------------------------- */

static void reply_status(int rank, const dmsg *req, int status, const char *msg)
{
    size_t n = msg ? strlen(msg) + 1 : 0;
    dmsg *r = dmsg_new(DM_REPLY, n);
    r->tag = req->tag;
    r->status = status;
    if (n)
        memcpy(DMSG_PAYLOAD(r), msg, n);
    dist_send(rank, r);
}

static void reply_cap(int rank, const dmsg *req, mpd_cap c)
{
    dmsg *r = dmsg_new(DM_REPLY, 0);
    r->tag = req->tag;
    r->cap = c;
    dist_send(rank, r);
}

/* What a call from another vm carries until it is answered. */
typedef struct remote_inv {
    int rank;
    uint64_t tag;
} remote_inv;

void dist_answer(mpd_invb *ib)
{
    remote_inv *ri = ib->done;
    ib->done = NULL;
    uint32_t n = ib->size - (uint32_t)sizeof(mpd_invb);
    dmsg *r = dmsg_new_raw(DM_REPLY, n);
    r->tag = ri->tag;
    memcpy(DMSG_PAYLOAD(r), ib + 1, n);
    dist_send(ri->rank, r);
    free(ri);
}

/* ---- resolving a capability without aborting ------------------------------- */

static mpd_op *resolve(mpd_cap c, const char **why)
{
    *why = "attempting to invoke operation that no longer exists";
    if (c.vm != mpd__cap_vm)
        return NULL;
    if (c.idx == MPD_CAP_RES || c.idx == MPD_CAP_VM) {
        *why = "invalid operation capability";
        return NULL;
    }
    for (int depth = 0; depth < 8; depth++) {
        mpd_res *r = obj_lookup(c.obj);
        if (!r)
            return NULL;
        if (c.idx >= r->nops) {
            *why = "invalid operation capability";
            return NULL;
        }
        mpd_op *op = &r->ops[c.idx];
        switch (op_kind(op)) {
        case MPD_OPK_ALIAS:
            c = *(const mpd_cap *)op->q;
            if (c.vm != mpd__cap_vm)
                return NULL; /* not followed across vms again */
            continue;
        case MPD_OPK_DEAD:
            return NULL;
        case MPD_OPK_NONE:
            *why = "invalid operation capability";
            return NULL;
        default:
            return op;
        }
    }
    return NULL;
}

/* ---- invocations ------------------------------------------------------------- */

/* A block received apart (dmsg.blen): it only needs its header. */
static mpd_invb *block_made(mpd_invb *h, int kind)
{
    h->kind = (uint8_t)kind;
    h->flags = MPD_INVF_HEAP;
    return h;
}

static mpd_invb *block_of(const dmsg *m, int kind)
{
    uint32_t n = dmsg_plen(m) - m->aux;
    uint32_t size = (uint32_t)sizeof(mpd_invb) + n;
    mpd_invb *h = inv_alloc(size);
    memset(h, 0, sizeof *h);
    h->size = size;
    h->kind = (uint8_t)kind;
    h->flags = MPD_INVF_HEAP;
    memcpy(h + 1, DMSG_PAYLOAD(m) + m->aux, n);
    return h;
}

static void serve_invoke(dmsg *m, int src, mpd_invb *blk)
{
    const char *F = dist_intern(DMSG_PAYLOAD(m));
    int L = m->line;
    const char *why;
    mpd_op *op = m->dst_vm == atomic_load(&dist_home_vm) ? resolve(m->cap, &why) : NULL;
    if (m->dst_vm != atomic_load(&dist_home_vm))
        why = "attempting to invoke operation that no longer exists (its virtual machine was "
              "destroyed)";
    int kind = m->type == DM_CALL ? MPD_INV_CALL : MPD_INV_SEND;
    if (op && kind == MPD_INV_CALL && (op_flags(op) & MPD_OP_SENDONLY)) {
        op = NULL;
        why = "cannot call a send-only operation";
    }
    if (op && kind == MPD_INV_SEND && (op_flags(op) & MPD_OP_CALLONLY)) {
        op = NULL;
        why = "cannot send to a call-only operation";
    }
    if (!op) {
        if (blk)
            inv_free(blk);
        if (kind == MPD_INV_CALL)
            reply_status(src, m, 1, why); /* the caller aborts at its line */
        else
            mpd_rts_abort(F, L, "%s", why); /* nobody waits: abort here */
        return;
    }
    mpd_invb *h = blk ? block_made(blk, kind) : block_of(m, kind);
    h->file = F;
    h->line = L;
    if (kind == MPD_INV_CALL) {
        remote_inv *ri = malloc(sizeof *ri);
        if (!ri)
            mpd_rts_fatal("out of memory");
        ri->rank = src;
        ri->tag = m->tag;
        h->done = ri;
        h->flags |= MPD_INVF_REMOTE;
    }
    inv_deliver(F, L, op, h); /* never blocks; procs get a process */
}

/* On a VP with no process running (the core's poll hook): a call or send
 * that finds its op goes straight to it -- a proc's process is started
 * here, an input op's queue gets the block and its waiter is readied --
 * and runs on this VP next, with no listener process in between (one
 * switch less per message).  Everything else (refusals, which may abort;
 * an invoker with a priority, which the new process must take: opk_spawn
 * takes it from the spawning process; other requests) goes to the
 * listener.  Returns 1 when m was consumed. */
int dist_serve_direct(dmsg *m, int src, mpd_invb *blk)
{
    if ((m->type != DM_CALL && m->type != DM_SEND) || m->prio != 0 ||
        m->dst_vm != atomic_load(&dist_home_vm) || atomic_load(&unserved))
        return 0;
    const char *why;
    mpd_op *op = resolve(m->cap, &why);
    int kind = m->type == DM_CALL ? MPD_INV_CALL : MPD_INV_SEND;
    if (!op || (op_flags(op) & (kind == MPD_INV_CALL ? MPD_OP_SENDONLY : MPD_OP_CALLONLY)))
        return 0;
    int k = op_kind(op);
    if (k != MPD_OPK_PROC && k != MPD_OPK_INPUT)
        return 0;
    serve_invoke(m, src, blk);
    dist_msg_release(m);
    return 1;
}

static void serve_pending(dmsg *m, int src)
{
    const char *why;
    mpd_op *op = m->dst_vm == atomic_load(&dist_home_vm) ? resolve(m->cap, &why) : NULL;
    if (!op) {
        reply_status(src, m, -1, "attempting to invoke operation that no longer exists");
        return;
    }
    if (op_kind(op) == MPD_OPK_PROC) {
        reply_status(src, m, -1, "cannot input from a proc operation");
        return;
    }
    dmsg *r = dmsg_new(DM_REPLY, 0);
    r->tag = m->tag;
    r->aux = (uint32_t)mpd_pending_op(op);
    dist_send(src, r);
}

/* ---- requests that get a process ------------------------------------------- */

typedef struct job {
    dmsg *m;
    int src;
} job;

static const mpd_respat *pattern_named(const char *sym)
{
    /* only a pattern the compiler made: mpdr_<name>_pat, in this executable */
    size_t n = strlen(sym);
    if (n < 10 || strncmp(sym, "mpdr_", 5) || strcmp(sym + n - 4, "_pat"))
        return NULL;
    return dlsym(RTLD_DEFAULT, sym);
}

static void create_job(void *arg)
{
    job *j = arg;
    dmsg *m = j->m;
    const char *F = dist_intern(DMSG_PAYLOAD(m));
    const mpd_respat *pat = pattern_named(DMSG_PAYLOAD(m) + strlen(DMSG_PAYLOAD(m)) + 1);
    if (m->dst_vm != atomic_load(&dist_home_vm)) {
        reply_status(j->src, m, 1, "virtual machine no longer exists");
    } else if (!pat) {
        reply_status(j->src, m, 1, "create of a resource this program does not have");
    } else {
        mpd_invb *args = block_of(m, MPD_INV_CALL);
        args->flags = 0;
        mpd_cap c = mpd_create_on(F, m->line, pat, args, NULL, NULL);
        inv_free(args);
        reply_cap(j->src, m, c);
    }
    free(m);
    free(j);
}

static void destroy_job(void *arg)
{
    job *j = arg;
    dmsg *m = j->m;
    const char *F = dist_intern(DMSG_PAYLOAD(m));
    if (m->dst_vm != atomic_load(&dist_home_vm) || m->cap.vm != mpd__cap_vm)
        reply_status(j->src, m, 1, "attempting to destroy resource that no longer exists");
    else {
        mpd_destroy(F, m->line, m->cap);
        reply_status(j->src, m, 0, NULL);
    }
    free(m);
    free(j);
}

/* This rank no longer serves a vm: its number is refused from now on. */
static void vm_leave(void)
{
    atomic_store(&dist_home_vm, 0);
    mpd__cap_vm = UINT32_MAX;
    res_set_home_vm(UINT32_MAX);
    mpd_rts_label[0] = 0;
}

static void destroy_vm_job(void *arg)
{
    job *j = arg;
    dmsg *m = j->m;
    const char *F = dist_intern(DMSG_PAYLOAD(m));
    if (m->dst_vm != atomic_load(&dist_home_vm)) {
        reply_status(j->src, m, 1, "attempting to destroy a virtual machine that no longer exists");
    } else {
        res_destroy_home_vm(F, m->line);
        vm_leave();
        /* rank 0 knows this rank is free before the destroyer goes on */
        free(dist_request(0, dmsg_new(DM_VM_FREED, 0), NULL, 0));
        reply_status(j->src, m, 0, NULL);
    }
    free(m);
    free(j);
}

static void vm_create_job(void *arg)
{
    job *j = arg;
    dmsg *m = j->m;
    const char *why;
    int r = dist_vms_pick(DMSG_PAYLOAD(m), j->src, &why);
    if (r < 0) {
        reply_status(j->src, m, 1, why);
    } else {
        uint32_t vm = dist_vms_assign(r);
        dmsg *init = dmsg_new(DM_VM_INIT, 0);
        init->aux = vm;
        /* machine -1 (no `on`): the creator's */
        init->line = (int)m->line == -1 ? (int)m->status : m->line;
        free(dist_request(r, init, NULL, 0));
        dmsg *rep = dmsg_new(DM_REPLY, 0);
        rep->tag = m->tag;
        rep->aux = vm;
        rep->line = r;
        dist_send(j->src, rep);
    }
    free(m);
    free(j);
}

static void stop_job(void *arg)
{
    job *j = arg;
    int status = j->m->status;
    free(j->m);
    free(j);
    mpd_stop(NULL, 0, status); /* final code first when 0 */
}

static void spawn_job(void (*fn)(void *), dmsg *m, int src, const char *name)
{
    job *j = malloc(sizeof *j);
    if (!j)
        mpd_rts_fatal("out of memory");
    j->m = m;
    j->src = src;
    opk_spawn(fn, j, name, NULL, 0);
}

/* ---- the listener ------------------------------------------------------------- */

static void serve_one(dmsg *m, int src, mpd_invb *blk)
{
    /* what it starts gets the invoker's priority */
    if (mpd_proc_priority(mpd_self()) != m->prio)
        mpd_proc_set_priority(mpd_self(), m->prio);
    switch (m->type) {
    case DM_CALL:
    case DM_SEND:
        serve_invoke(m, src, blk);
        blk = NULL;
        break;
    case DM_PENDING:
        serve_pending(m, src);
        break;
    case DM_CREATE:
        spawn_job(create_job, m, src, "create");
        return;
    case DM_DESTROY:
        spawn_job(destroy_job, m, src, "destroy");
        return;
    case DM_DESTROY_VM:
        spawn_job(destroy_vm_job, m, src, "destroy vm");
        return;
    case DM_VM_CREATE:
        if (dist_rank != 0)
            break;
        spawn_job(vm_create_job, m, src, "create vm");
        return;
    case DM_VM_INIT: {
        uint32_t vm = m->aux;
        atomic_store(&dist_home_vm, DVM(vm));
        mpd__cap_vm = DVM(vm);
        res_set_home_vm(DVM(vm));
        dist_home_machine = m->line;
        snprintf(mpd_rts_label, sizeof mpd_rts_label, "[vm %u] ", vm);
        reply_status(src, m, 0, NULL);
        break;
    }
    case DM_VM_FREED:
        if (dist_rank == 0)
            dist_vms_freed(src);
        reply_status(src, m, 0, NULL);
        break;
    case DM_WHERE: {
        int r = dist_rank == 0 ? dist_rank_of_vm(m->aux, NULL, 0) : -1;
        reply_status(src, m, r, NULL);
        break;
    }
    case DM_STOP:
        if (dist_rank != 0)
            break;
        spawn_job(stop_job, m, src, "stop");
        return;
    default:
        dmsg_reject(src, "a request this process does not serve");
        break;
    }
    free(m);
}

static void listener(void *arg)
{
    (void)arg;
    for (;;) {
        inbound *i = take();
        if (!i) {
            mpd_ext_wait(&listener_ev, 0); /* not the program's: hidden */
            continue;
        }
        dmsg *m = i->m;
        mpd_invb *blk = i->blk;
        int src = i->src;
        free(i);
        if (blk && m->type != DM_CALL && m->type != DM_SEND) {
            inv_free(blk); /* not reached: dmsg_check allows blocks apart to invocations only */
            blk = NULL;
        }
        serve_one(m, src, blk);
        atomic_fetch_sub(&unserved, 1);
    }
}

/* Before the communication thread starts: a request it receives at once
 * (a VM_INIT) wakes the listener's event, which must not be initialized
 * over that wake (TSan: a race, and the wake could be lost). */
void dist_serve_init(void)
{
    mpd_ext_init(&listener_ev);
}

void dist_serve_start(void)
{
    mpd_proc_attr a = MPD_PROC_ATTR_INIT;
    a.name = "listener";
    a.detached = 1;
    a.name_static = 1;
    mpd_proc_create(listener, NULL, &a);
}
