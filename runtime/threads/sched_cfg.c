/* sched_cfg.c: the configurable per-VP scheduler (FIFO/priority/EDF, locality, migration,
 * preemption, throttling window) installed on the runtime's VPs by mpd/threads.h. */
#include "threads/threads_impl.h"
#include "core/rt_internal.h" /* mpd__wake_all_idle_vps: a ready thread pinned to a sleeping VP */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mpd/err.h"
#include "mpd/ras.h"

#define MAX_STATIC_VP 256

/* A ready queue kept in policy order (insertion sort: queues are short). */
typedef struct cq {
    mpd_spinlock lk;
    mpd_proc *head, *tail;
    atomic_long n;
} cq;

typedef struct vpsched {
    int vp;
    mpd_sched_attr_t attr; /* applied; read by other VPs with relaxed loads */
    mpd_sched_attr_t pending;
    atomic_int has_pending;
    mpd_spinlock attr_lk;
    cq local;
    cq *q;                      /* &local, or &global_q */
    atomic_int migrate, policy; /* copies other VPs read */
    atomic_ulong picks, migrations, swaps;
    long preempt_armed_us;
    /* A scheduler object of one's own (mpd_sched_install_ops): the
     * configurable object stays installed in the core and hands every call to
     * it.  Swapped at run time by the VP itself in cfg_get (want_ops); other
     * VPs read custom only through custom_ver, a sequence count that is odd
     * while the swap moves the ready threads over. */
    const mpd_sched_ops *_Atomic custom;
    void *custom_st;
    const mpd_sched_ops *_Atomic want_ops; /* a swap asked for, or NULL */
    atomic_uint custom_ver;
    atomic_ulong obj_swaps;
    /* throttling window */
    atomic_int window;
    atomic_long uncommitted, committed_cur, rolled_cur;
    long committed_last, committed_prev, rolled_last;
    int64_t next_feedback_ns;
    mpd_spinlock fb_lk;
    char pad[64];
} vpsched;

static vpsched *vps;
static int is_custom(int vp);
static int nvps;
static cq global_q;
static mpd_sched_attr_t static_attr[MAX_STATIC_VP];
static unsigned char static_set[MAX_STATIC_VP];
static mpd_sched_attr_t static_all;
static int static_all_set;
static atomic_int started;

void mpd_sched_attr_init(mpd_sched_attr_t *a)
{
    memset(a, 0, sizeof *a);
    a->policy = MPD_SCHED_FIFO;
    a->locality = MPD_SCHED_LOCAL;
    a->migrate = 1;
    a->throttle_ms = 10;
}

static int attr_ok(const mpd_sched_attr_t *a)
{
    return a && a->policy >= MPD_SCHED_FIFO && a->policy <= MPD_SCHED_EDF &&
           (a->locality == MPD_SCHED_LOCAL || a->locality == MPD_SCHED_GLOBAL) &&
           a->preempt_us >= 0 && a->throttle >= 0 && a->throttle_ms >= 0;
}

static const mpd_sched_ops *custom_ops[MAX_STATIC_VP];
static const mpd_sched_ops *custom_all;
static int swap_ops(int vp, const mpd_sched_ops *ops);

int mpd_sched_install_ops(int vp, const mpd_sched_ops *ops)
{
    if (!ops || vp < -1 || vp >= MAX_STATIC_VP)
        return EINVAL;
    if (ops != &mpd_sched_configurable && (!ops->init || !ops->put || !ops->get))
        return EINVAL;
    if (ops == &mpd_sched_configurable)
        ops = NULL;
    if (atomic_load(&started))
        return swap_ops(vp, ops);
    if (vp < 0) {
        custom_all = ops;
        memset(custom_ops, 0, sizeof custom_ops);
    } else
        custom_ops[vp] = ops;
    return 0;
}

/* Puts the configurable scheduler on every VP; the ones installed above run
 * behind it (see vpsched.custom). */
void mpd__cfg_sched_start(void)
{
    mpd_vp_set_sched(-1, &mpd__cfg_sched_ops);
    atomic_store(&started, 1);
}

static int is_custom(int vp)
{
    return vps && vp < nvps && atomic_load_explicit(&vps[vp].custom, memory_order_acquire) != NULL;
}

/* A scheduler object of one's own is user code called from inside the
 * scheduler: no preemption tick may re-enter the scheduler from it. */
static void *cu_init(const mpd_sched_ops *o, int vp, int n)
{
    mpd_preempt_off();
    void *st = o->init(vp, n);
    mpd_preempt_on();
    return st;
}
static void cu_put(const mpd_sched_ops *o, void *st, mpd_proc *p)
{
    mpd_preempt_off();
    o->put(st, p);
    mpd_preempt_on();
}
static mpd_proc *cu_get(const mpd_sched_ops *o, void *st)
{
    mpd_preempt_off();
    mpd_proc *p = o->get(st);
    mpd_preempt_on();
    return p;
}

int mpd_sched_install(int vp, const mpd_sched_attr_t *a)
{
    if (!attr_ok(a) || vp < -1 || vp >= MAX_STATIC_VP)
        return EINVAL;
    if (atomic_load(&started))
        return EBUSY;
    if (vp < 0) {
        static_all = *a;
        static_all_set = 1;
        memset(static_set, 0, sizeof static_set);
    } else {
        static_attr[vp] = *a;
        static_set[vp] = 1;
    }
    return 0;
}

/* ---- queue order ---- */
static int64_t edf_key(mpd_proc *p)
{
    mpd_thread_t *t = thread_of(p);
    int64_t d = t ? atomic_load_explicit(&t->deadline, memory_order_relaxed) : 0;
    return d > 0 ? d : INT64_MAX;
}

/* 1 if a must run before b under policy (ties keep arrival order). */
static int before(int policy, mpd_proc *a, mpd_proc *b)
{
    if (policy == MPD_SCHED_PRIORITY)
        return mpd_proc_priority(a) > mpd_proc_priority(b);
    if (policy == MPD_SCHED_EDF)
        return edf_key(a) < edf_key(b);
    return 0;
}

static void cq_insert(cq *q, mpd_proc *p, int policy)
{
    *mpd_proc_link(p) = NULL;
    if (!q->head) {
        q->head = q->tail = p;
    } else if (policy == MPD_SCHED_FIFO || !before(policy, p, q->tail)) {
        *mpd_proc_link(q->tail) = p;
        q->tail = p;
    } else {
        mpd_proc **pp = &q->head;
        while (*pp && !before(policy, p, *pp))
            pp = mpd_proc_link(*pp);
        *mpd_proc_link(p) = *pp;
        *pp = p;
        if (!*mpd_proc_link(p))
            q->tail = p;
    }
    atomic_store_explicit(&q->n, atomic_load_explicit(&q->n, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static mpd_proc *cq_pop(cq *q)
{
    if (atomic_load_explicit(&q->n, memory_order_relaxed) == 0)
        return NULL;
    mpd_spin_lock(&q->lk);
    mpd_proc *p = q->head;
    if (p) {
        q->head = *mpd_proc_link(p);
        if (!q->head)
            q->tail = NULL;
        atomic_store_explicit(&q->n, atomic_load_explicit(&q->n, memory_order_relaxed) - 1,
                              memory_order_relaxed);
    }
    mpd_spin_unlock(&q->lk);
    return p;
}

/* Re-order a queue under a new policy (the "swap"). */
static void cq_resort(cq *q, int policy)
{
    mpd_spin_lock(&q->lk);
    mpd_proc *l = q->head;
    q->head = q->tail = NULL;
    atomic_store_explicit(&q->n, 0, memory_order_relaxed);
    while (l) {
        mpd_proc *nx = *mpd_proc_link(l);
        cq_insert(q, l, policy);
        l = nx;
    }
    mpd_spin_unlock(&q->lk);
}

/* ---- the scheduler object ---- */
static void vps_setup(int n)
{
    size_t bytes = (sizeof(vpsched) * (size_t)n + 63) / 64 * 64; /* a multiple of the alignment */
    vps = aligned_alloc(64, bytes);
    if (!vps)
        mpd_rts_fatal("out of memory for the thread schedulers");
    memset(vps, 0, sizeof(vpsched) * (size_t)n);
    nvps = n;
    for (int i = 0; i < n; i++) {
        vpsched *s = &vps[i];
        s->vp = i;
        if (i < MAX_STATIC_VP && static_set[i])
            s->attr = static_attr[i];
        else if (static_all_set)
            s->attr = static_all;
        else
            mpd_sched_attr_init(&s->attr);
        s->q = s->attr.locality == MPD_SCHED_GLOBAL ? &global_q : &s->local;
        atomic_init(&s->migrate, s->attr.migrate);
        atomic_init(&s->policy, s->attr.policy);
        atomic_init(&s->window, s->attr.throttle);
        s->next_feedback_ns =
            mpd_now_ns() + (int64_t)(s->attr.throttle_ms ? s->attr.throttle_ms : 10) * 1000000;
        const mpd_sched_ops *o = i < MAX_STATIC_VP && custom_ops[i] ? custom_ops[i] : custom_all;
        if (o) {
            s->custom_st = cu_init(o, i, n);
            atomic_store(&s->custom, o);
        }
    }
    atomic_store(&started, 1);
}

static void *cfg_init(int vp, int nvp)
{
    if (!vps)
        vps_setup(nvp);
    return &vps[vp];
}

static void cfg_put(void *st, mpd_proc *p)
{
    vpsched *s = st;
    const mpd_sched_ops *co = atomic_load_explicit(&s->custom, memory_order_relaxed);
    mpd_thread_t *t = thread_of(p);
    int new_thread = 0;
    if (!t && mpd__threads_forking && mpd_proc_udata(p) == NULL) {
        t = mpd__threads_forking; /* a fork in progress: attach now */
        t->p = p;
        mpd_proc_set_udata(p, t);
        mpd__threads_forking = NULL;
        new_thread = 1;
    }
    if (co) { /* only this VP changes its own custom */
        cu_put(co, s->custom_st, p);
        return;
    }
    vpsched *target = s;
    if (t && t->home_vp != s->vp && t->home_vp < nvps && !is_custom(t->home_vp)) {
        vpsched *home = &vps[t->home_vp];
        /* pinned threads go home; so does a new thread forked for another VP */
        if (!atomic_load_explicit(&home->migrate, memory_order_relaxed) || new_thread)
            target = home;
    }
    cq *q = target->q;
    mpd_spin_lock(&q->lk);
    cq_insert(q, p, atomic_load_explicit(&target->policy, memory_order_relaxed));
    mpd_spin_unlock(&q->lk);
    if (target != s)
        mpd__wake_vp(target->vp); /* the target VP may be asleep; only it can run p */
}

static void apply_pending(vpsched *s)
{
    mpd_spin_lock(&s->attr_lk);
    mpd_sched_attr_t a = s->pending;
    atomic_store(&s->has_pending, 0);
    mpd_spin_unlock(&s->attr_lk);
    int resort = a.policy != s->attr.policy;
    if (a.throttle_ms != s->attr.throttle_ms)
        s->next_feedback_ns =
            mpd_now_ns() + (int64_t)(a.throttle_ms ? a.throttle_ms : 10) * 1000000;
    a.locality = s->attr.locality; /* fixed once started */
    s->attr = a;
    atomic_store(&s->migrate, a.migrate);
    atomic_store(&s->policy, a.policy);
    if (a.throttle != atomic_load(&s->window) && a.throttle == 0)
        atomic_store(&s->window, 0);
    else if (a.throttle > 0 && atomic_load(&s->window) == 0)
        atomic_store(&s->window, a.throttle);
    if (resort) {
        cq_resort(s->q, a.policy);
        atomic_fetch_add(&s->swaps, 1);
    }
}

static void check_preempt(vpsched *s)
{
    if (s->attr.preempt_us == s->preempt_armed_us)
        return;
    if (s->attr.preempt_us > 0) {
        if (mpd_preempt_start(s->attr.preempt_us, mpd__threads_preempt_hook) != 0)
            mpd_rts_warning("cannot arm the preemption timer on VP %d", s->vp);
    } else {
        mpd_preempt_stop();
    }
    s->preempt_armed_us = s->attr.preempt_us;
}

/* ---- swapping the scheduler object at run time ---- */
/* Everything ready in the configurable queues of s (its own, and its share
 * of the global one when that is its only queue), moved to the custom object. */
static void drain_cfg_into(vpsched *s, const mpd_sched_ops *to, void *to_st)
{
    mpd_proc *p;
    while ((p = cq_pop(&s->local)))
        cu_put(to, to_st, p);
    if (s->q == &s->local)
        return;
    for (int i = 0; i < nvps; i++) /* the global queue: others may serve it */
        if (i != s->vp && vps[i].q == s->q && !atomic_load(&vps[i].custom))
            return;
    while ((p = cq_pop(s->q)))
        cu_put(to, to_st, p);
}

/* Runs on the VP itself, at a scheduling decision: no thread of this VP is
 * being queued or dequeued, and put() from other VPs never reaches a custom
 * object (cfg_put keeps a thread homed on a custom VP where it is). */
static void apply_swap(vpsched *s)
{
    const mpd_sched_ops *want = atomic_exchange(&s->want_ops, NULL);
    if (!want)
        return;
    const mpd_sched_ops *old = atomic_load(&s->custom),
                        *to = want == &mpd_sched_configurable ? NULL : want;
    if (to == old)
        return;
    atomic_fetch_add(&s->custom_ver, 1); /* odd: cfg_empty says "not empty" */
    void *old_st = s->custom_st;
    if (to) {
        void *st = cu_init(to, s->vp, nvps);
        if (old) {
            mpd_proc *p;
            while ((p = cu_get(old, old_st)))
                cu_put(to, st, p);
        }
        drain_cfg_into(s, to, st);
        s->custom_st = st;
    } else {
        mpd_proc *p;
        int pol = atomic_load_explicit(&s->policy, memory_order_relaxed);
        while ((p = cu_get(old, old_st))) {
            mpd_spin_lock(&s->local.lk);
            cq_insert(&s->local, p, pol);
            mpd_spin_unlock(&s->local.lk);
        }
        s->custom_st = NULL;
    }
    atomic_store_explicit(&s->custom, to, memory_order_release);
    atomic_fetch_add(&s->custom_ver, 1);
    atomic_fetch_add(&s->obj_swaps, 1);
}

static mpd_proc *custom_get(vpsched *s, const mpd_sched_ops *co)
{
    /* a thread another VP queued here just before the swap: hand it over */
    if (__builtin_expect(atomic_load_explicit(&s->local.n, memory_order_relaxed) > 0, 0))
        drain_cfg_into(s, co, s->custom_st);
    return cu_get(co, s->custom_st);
}

static mpd_proc *cfg_get(void *st)
{
    vpsched *s = st;
    if (__builtin_expect(atomic_load_explicit(&s->want_ops, memory_order_relaxed) != NULL, 0))
        apply_swap(s);
    const mpd_sched_ops *co = atomic_load_explicit(&s->custom, memory_order_relaxed);
    if (co)
        return custom_get(s, co);
    if (__builtin_expect(atomic_load_explicit(&s->has_pending, memory_order_acquire), 0))
        apply_pending(s);
    if (__builtin_expect(s->attr.preempt_us != s->preempt_armed_us, 0))
        check_preempt(s);
    mpd_proc *p = cq_pop(s->q);
    if (!p && s->q != &s->local)
        p = cq_pop(&s->local);
    if (p)
        atomic_store_explicit(&s->picks, atomic_load_explicit(&s->picks, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    return p;
}

static int cfg_empty(void *st)
{
    vpsched *s = st;
    unsigned v = atomic_load_explicit(&s->custom_ver, memory_order_acquire);
    if (v & 1)
        return 0; /* threads in transit */
    const mpd_sched_ops *co = atomic_load_explicit(&s->custom, memory_order_acquire);
    int e = atomic_load_explicit(&s->q->n, memory_order_relaxed) == 0 &&
            atomic_load_explicit(&s->local.n, memory_order_relaxed) == 0;
    if (e && co && co->empty) {
        mpd_preempt_off();
        e = co->empty(s->custom_st);
        mpd_preempt_on();
    }
    return e && atomic_load_explicit(&s->custom_ver, memory_order_acquire) == v;
}

/* Work queued for a pinned VP that is asleep: pass the wakeup on (a backstop:
 * cfg_put wakes the sleepers itself).  Only when that VP really sleeps: the
 * caller is an idle VP, counted asleep, and a wakeup makes its own idle wait
 * return at once, so nudging a VP that was awake but had not yet taken its
 * work -- waiting for the idle lock that the nudging VP kept retaking --
 * became a livelock (a condition-variable barrier of threads pinned to 4 VPs
 * on 2 CPUs: idle_seq bumped ~47M times, the run stuck for seconds to
 * minutes, or taken for a deadlock). */
static void nudge_pinned(vpsched *s)
{
    for (int k = 1; k < nvps; k++) {
        vpsched *o = &vps[(s->vp + k) % nvps];
        if (o->q == &o->local && atomic_load_explicit(&o->local.n, memory_order_relaxed) > 0 &&
            !atomic_load_explicit(&o->migrate, memory_order_relaxed) && mpd__vp_asleep(o->vp)) {
            mpd__wake_vp(o->vp); /* once: the wake clears its asleep flag */
            return;
        }
    }
}

static mpd_proc *cfg_idle(void *st)
{
    vpsched *s = st;
    const mpd_sched_ops *co = atomic_load_explicit(&s->custom, memory_order_relaxed);
    if (co) {
        if (!co->idle)
            return NULL;
        mpd_preempt_off();
        mpd_proc *p = co->idle(s->custom_st);
        mpd_preempt_on();
        return p;
    }
    if (nvps > 1)
        nudge_pinned(s);
    if (!atomic_load_explicit(&s->migrate, memory_order_relaxed))
        return NULL;
    for (int k = 1; k < nvps; k++) {
        vpsched *o = &vps[(s->vp + k) % nvps];
        if (!atomic_load_explicit(&o->migrate, memory_order_relaxed) || o->q == s->q ||
            atomic_load_explicit(&o->custom, memory_order_relaxed))
            continue;
        mpd_proc *p = cq_pop(o->q);
        if (p) {
            mpd_thread_t *t = thread_of(p);
            if (t && !atomic_load_explicit(&vps[t->home_vp].migrate, memory_order_relaxed)) {
                mpd_spin_lock(&o->q->lk); /* pinned elsewhere after all: put it back */
                cq_insert(o->q, p, atomic_load(&o->policy));
                mpd_spin_unlock(&o->q->lk);
                continue;
            }
            atomic_fetch_add(&s->migrations, 1);
            return p;
        }
    }
    return NULL;
}

const mpd_sched_ops mpd__cfg_sched_ops = {"configurable", cfg_init,  cfg_put,
                                          cfg_get,        cfg_empty, cfg_idle};
/* The public name of the configurable object, for mpd_sched_install_ops. */
const mpd_sched_ops mpd_sched_configurable = {"configurable", cfg_init,  cfg_put,
                                              cfg_get,        cfg_empty, cfg_idle};

/* mpd_sched_install_ops after start: the VP swaps at its next decision. */
static int swap_ops(int vp, const mpd_sched_ops *ops)
{
    if (!vps)
        return EBUSY; /* started without the threads layer */
    if (vp >= nvps)
        return EINVAL;
    const mpd_sched_ops *w = ops ? ops : &mpd_sched_configurable;
    for (int i = vp < 0 ? 0 : vp; i < (vp < 0 ? nvps : vp + 1); i++)
        atomic_store(&vps[i].want_ops, w);
    mpd__wake_all_idle_vps(); /* a sleeping VP decides at once */
    return 0;
}

unsigned long mpd_sched_object_swaps(int vp)
{
    return vps && vp >= 0 && vp < nvps ? atomic_load(&vps[vp].obj_swaps) : 0;
}

/* ---- dynamic configuration ---- */
static int set_one(int vp, const mpd_sched_attr_t *a)
{
    vpsched *s = &vps[vp];
    if (is_custom(vp))
        return EINVAL;
    if (a->locality != s->attr.locality)
        return EBUSY;
    mpd_spin_lock(&s->attr_lk);
    s->pending = *a;
    atomic_store_explicit(&s->has_pending, 1, memory_order_release);
    mpd_spin_unlock(&s->attr_lk);
    atomic_store(&s->migrate, a->migrate); /* visible to other VPs at once */
    mpd__wake_idle_vp();
    return 0;
}

int mpd_sched_set_attr(int vp, const mpd_sched_attr_t *a)
{
    if (!attr_ok(a))
        return EINVAL;
    if (!vps)
        return atomic_load(&started) ? EINVAL
                                     : mpd_sched_install(vp, a); /* started: all VPs custom */
    if (vp < -1 || vp >= nvps)
        return EINVAL;
    if (vp >= 0)
        return set_one(vp, a);
    for (int i = 0; i < nvps; i++) {
        if (is_custom(i))
            continue;
        int r = set_one(i, a);
        if (r)
            return r;
    }
    return 0;
}

int mpd_sched_get_attr(int vp, mpd_sched_attr_t *a)
{
    if (!vps) {
        if (vp < 0 || vp >= MAX_STATIC_VP)
            return EINVAL;
        if (static_set[vp])
            *a = static_attr[vp];
        else if (static_all_set)
            *a = static_all;
        else
            mpd_sched_attr_init(a);
        return 0;
    }
    if (vp < 0 || vp >= nvps)
        return EINVAL;
    vpsched *s = &vps[vp];
    mpd_spin_lock(&s->attr_lk);
    *a = atomic_load(&s->has_pending) ? s->pending : s->attr;
    mpd_spin_unlock(&s->attr_lk);
    return 0;
}

void mpd_sched_stats(int vp, unsigned long *picks, unsigned long *migrations, unsigned long *swaps)
{
    if (!vps || vp < 0 || vp >= nvps) {
        *picks = *migrations = *swaps = 0;
        return;
    }
    *picks = atomic_load(&vps[vp].picks);
    *migrations = atomic_load(&vps[vp].migrations);
    *swaps = atomic_load(&vps[vp].swaps);
}

/* ---- throttling window ---- */
int mpd_throttle_default_policy(int vp, const mpd_throttle_info_t *in, void *arg)
{
    (void)vp;
    (void)arg;
    int w = in->window;
    if (in->committed_last > in->committed_prev && in->rolled_back_last <= in->committed_last)
        return w + 1 + w / 4; /* more commits: speculate further */
    if (in->committed_last < in->committed_prev || in->rolled_back_last > in->committed_last)
        return w - w / 4 - 1 > 1 ? w - w / 4 - 1
                                 : 1; /* fewer commits or many rollbacks: throttle */
    return w;
}

static vpsched *my_vps(void)
{
    int v = mpd_vp_index();
    return vps && v >= 0 && v < nvps ? &vps[v] : NULL;
}

static void feedback(vpsched *s)
{
    int64_t now = mpd_now_ns();
    if (now < s->next_feedback_ns || !mpd_spin_trylock(&s->fb_lk))
        return;
    if (now >= s->next_feedback_ns) {
        s->committed_prev = s->committed_last;
        s->committed_last = atomic_exchange(&s->committed_cur, 0);
        s->rolled_last = atomic_exchange(&s->rolled_cur, 0);
        mpd_throttle_info_t in = {atomic_load(&s->window), atomic_load(&s->uncommitted),
                                  s->committed_last, s->committed_prev, s->rolled_last};
        mpd_throttle_policy_fn f =
            s->attr.throttle_policy ? s->attr.throttle_policy : mpd_throttle_default_policy;
        mpd_preempt_off(); /* user code, under fb_lk */
        int w = f(s->vp, &in, s->attr.throttle_arg);
        mpd_preempt_on();
        if (w < 1)
            w = 1;
        atomic_store(&s->window, w);
        s->next_feedback_ns =
            now + (int64_t)(s->attr.throttle_ms ? s->attr.throttle_ms : 10) * 1000000;
    }
    mpd_spin_unlock(&s->fb_lk);
}

int mpd_throttle_ok(void)
{
    vpsched *s = my_vps();
    if (!s || s->attr.throttle == 0)
        return 1;
    feedback(s);
    return atomic_load(&s->uncommitted) < atomic_load(&s->window);
}

void mpd_throttle_processed(long n)
{
    vpsched *s = my_vps();
    if (s)
        atomic_fetch_add(&s->uncommitted, n);
}
void mpd_throttle_committed(long n)
{
    vpsched *s = my_vps();
    if (!s)
        return;
    atomic_fetch_sub(&s->uncommitted, n);
    atomic_fetch_add(&s->committed_cur, n);
}
void mpd_throttle_rolled_back(long n)
{
    vpsched *s = my_vps();
    if (!s)
        return;
    atomic_fetch_sub(&s->uncommitted, n);
    atomic_fetch_add(&s->rolled_cur, n);
}
int mpd_throttle_window(int vp)
{
    return vps && vp >= 0 && vp < nvps ? atomic_load(&vps[vp].window) : 0;
}
