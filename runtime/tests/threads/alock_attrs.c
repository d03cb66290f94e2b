/* alock_attrs.c: adaptive-lock attribute rules (mutability, ownership), wake order, monitor, profile. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "mpd/alock.h"
#include "sync/adaptive_impl.h"
#include "core/rt_internal.h"
#include "check.h"

static _Thread_local int my_prio;
static int get_prio(void)
{
    return my_prio;
}

static mpd_alock_t *L;
static int order[8], norder;
static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;

static void *waiter(void *arg)
{
    my_prio = (int)(long)arg;
    mpd_alock_lock(L);
    pthread_mutex_lock(&order_mu);
    order[norder++] = (int)(long)arg;
    pthread_mutex_unlock(&order_mu);
    mpd_alock_unlock(L);
    return NULL;
}

static void wait_blocked(int n)
{
    mpd_alock_stats_t s;
    for (int i = 0; i < 20000; i++) {
        mpd_alock_stats(L, &s);
        if ((int)atomic_load(&L->nblocked) >= n)
            return;
        usleep(100);
    }
}

/* Queue 3 waiters with ids/prios 1,2,3 in that order, release, return order. */
static void run_order(int sched, int out[3])
{
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, MPD_ALOCK_BLOCK);
    a.sched = sched;
    L = mpd_alock_create(&a);
    mpd_alock_lock(L);
    pthread_t t[3];
    for (long i = 0; i < 3; i++) {
        pthread_create(&t[i], NULL, waiter, (void *)(i + 1));
        wait_blocked((int)i + 1);
    }
    norder = 0;
    mpd_alock_unlock(L);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    memcpy(out, order, 3 * sizeof(int));
    mpd_alock_destroy(L);
}

static int policy_calls;
static void counting_policy(mpd_alock_t *l, const mpd_alock_monitor_t *m, void *arg)
{
    (void)l;
    (void)m;
    (void)arg;
    policy_calls++;
}

int main(void)
{
    atomic_store(&mpd_alock__prio_hook, get_prio);
    mpd_alock_attr_t a;
    long sp, sl;

    /* presets */
    mpd_alock_attr_init(&a, MPD_ALOCK_SPIN);
    CHECK(a.spin_ns == MPD_ALOCK_FOREVER && a.policy == NULL);
    mpd_alock_attr_init(&a, MPD_ALOCK_BLOCK);
    CHECK(a.spin_ns == 0 && a.sleep_ns == MPD_ALOCK_FOREVER);
    mpd_alock_attr_init(&a, MPD_ALOCK_ADAPTIVE);
    CHECK(a.spin_ns == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && a.sleep_ns == MPD_ALOCK_FOREVER &&
          a.policy == mpd_alock_default_policy);
    mpd_alock_t *l = mpd_alock_create(NULL);
    CHECK(l != NULL);
    CHECK_EQ_L(mpd_alock_trylock(l), 0);
    CHECK_EQ_L(mpd_alock_trylock(l), EBUSY);
    mpd_alock_unlock(l);

    /* waiting policy: always mutable, values validated */
    CHECK_EQ_L(mpd_alock_set_waiting(l, NULL, 500, 700), 0);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 500 && sl == 700);
    CHECK_EQ_L(mpd_alock_set_waiting(l, NULL, -5, 0), EINVAL);
    mpd_alock_lock(l); /* mutable while held, too */
    CHECK_EQ_L(mpd_alock_set_waiting(l, NULL, 1, MPD_ALOCK_FOREVER), 0);
    mpd_alock_unlock(l);

    /* ownership */
    int agent1, agent2;
    CHECK_EQ_L(mpd_alock_attr_acquire(l, NULL), EINVAL);
    CHECK_EQ_L(mpd_alock_attr_acquire(l, &agent1), 0);
    CHECK_EQ_L(mpd_alock_attr_acquire(l, &agent1), 0); /* re-acquire by owner */
    CHECK_EQ_L(mpd_alock_attr_acquire(l, &agent2), EBUSY);
    CHECK_EQ_L(mpd_alock_set_waiting(l, &agent2, 1, 1), EPERM);
    CHECK_EQ_L(mpd_alock_set_waiting(l, NULL, 1, 1), EPERM);
    CHECK_EQ_L(mpd_alock_set_sched(l, &agent2, MPD_ALOCK_WAKE_LIFO), EPERM);
    CHECK_EQ_L(mpd_alock_set_policy(l, &agent2, NULL, NULL), EPERM);
    CHECK_EQ_L(mpd_alock_set_waiting(l, &agent1, 9, 9), 0);
    /* the default parameters, with every waiter counted as if on one CPU */
    mpd_alock_default_params_t one = {
        0.25, 1.0, MPD_ALOCK_DEFAULT_SPIN_MAX_NS, 0, 50000, 20000, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    /* the built-in policy acts for the lock: it is refused while an agent owns it */
    mpd_alock_monitor_t m = {0, 10, 10.0, 0, 0, 0, 0, 9, 9, 0.0, 0.0, 0.0};
    mpd_alock_default_policy(l, &m, &one);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 9 && sl == 9);
    CHECK_EQ_L(mpd_alock_attr_release(l, &agent2), EPERM);
    CHECK_EQ_L(mpd_alock_attr_release(l, &agent1), 0);
    mpd_alock_default_policy(l, &m, &one); /* now it applies: block */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    m.avg_waiting = 0.1;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one); /* low: spin (bounded), then block */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    m.avg_waiting = 0.6;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one); /* between: back-off */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp > 0 && sp < 20000 && sl > 1000 && sl < 50000);
    m.avg_waiting = 0.1;
    m.avg_wait_ns = 100000;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one); /* few waiters, long waits: block */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    m.avg_wait_ns = 500;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one); /* short waits again: spin */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    /* spin failures: block from 0.5 on; once blocking, spin again only below 0.2 */
    m.spin_fail = 0.6;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    m.spin_fail = 0.3;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one); /* hysteresis: still blocks */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    m.spin_fail = 0.1;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    m.spin_fail = 0.3;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one); /* spinning: 0.3 keeps it spinning */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    /* the spin bound follows what spin wins waited: 8 x avg_spin_ns, from 4 us by doublings, at most spin_max */
    long want[][2] = {{300, 4000}, {600, 8000}, {1000, 8000}, {1500, 16000}, {5000, 20000}};
    m.spin_fail = 0;
    for (int i = 0; i < 5; i++) {
        m.avg_spin_ns = (double)want[i][0];
        m.spin_ns = sp;
        m.sleep_ns = sl;
        mpd_alock_default_policy(l, &m, &one);
        mpd_alock_get_waiting(l, &sp, &sl);
        CHECK_EQ_L(sp, want[i][1]);
    }
    /* a bound in force stays while it is within [T, 4T) of the target T = 8 x avg_spin_ns
     * (no rewrite, no adaptation counted), and moves once it falls outside */
    long hys[][2] = {{300, 4000},  {450, 4000},   {600, 8000},   {900, 8000}, {1100, 16000},
                     {800, 16000}, {1900, 16000}, {2100, 20000}, {300, 4000}};
    mpd_alock_stats_t hs0, hs1;
    int moves = 0;
    mpd_alock_stats(l, &hs0);
    for (int i = 0; i < 9; i++) {
        long before = sp;
        m.avg_spin_ns = (double)hys[i][0];
        m.spin_ns = sp;
        m.sleep_ns = sl;
        mpd_alock_default_policy(l, &m, &one);
        mpd_alock_get_waiting(l, &sp, &sl);
        CHECK_EQ_L(sp, hys[i][1]);
        moves += sp != before;
    }
    mpd_alock_stats(l, &hs1);
    CHECK_EQ_L((long)(hs1.adaptations - hs0.adaptations), moves);
    CHECK_EQ_L(moves, 5);
    mpd_alock_default_params_t pp = {0.25, 1.0, 30000, 0, 50000, 20000, 2, 1000,
                                     0.9,  0.5, 0,     0, 0,     0,     0, 0};
    m.avg_spin_ns = 1500;
    m.spin_fail = 0.6;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &pp); /* own parameters: 2 x 1500 -> 4000 */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK_EQ_L(sp, 4000);
    m.avg_spin_ns = 0;
    m.spin_fail = 0;
    /* waiters that can each spin on a CPU of their own do not count: with 4 CPUs the
     * waiter term starts beyond 3 waiters (3 + low = 3.25), blocks from 3 + high = 4 */
    mpd_alock_default_params_t four = one;
    four.cpus = 4;
    double wv[] = {0.6, 2.9, 3.2, 3.6, 4.5};
    int wstate[] = {0, 0, 0, 1, 2}; /* 0 spin, 1 back-off, 2 block */
    for (int i = 0; i < 5; i++) {
        m.avg_waiting = wv[i];
        m.avg_wait_ns = 500;
        m.spin_ns = sp;
        m.sleep_ns = sl;
        mpd_alock_default_policy(l, &m, &four);
        mpd_alock_get_waiting(l, &sp, &sl);
        int st = sp == 0 && sl == MPD_ALOCK_FOREVER ? 2 : sl == MPD_ALOCK_FOREVER ? 0 : 1;
        CHECK_EQ_L(st, wstate[i]);
    }
    /* more VPs than CPUs: no spare CPUs, and a backed-off waiter yields its CPU at
     * every look, so by default the waiter count does not make the lock block or
     * back off: it spins (bounded), whatever the count */
    mpd__nvp = 5;
    double ow[] = {0.6, 1.5, 3.0};
    for (int i = 0; i < 3; i++) {
        m.avg_waiting = ow[i];
        m.spin_ns = sp;
        m.sleep_ns = sl;
        mpd_alock_default_policy(l, &m, &four);
        mpd_alock_get_waiting(l, &sp, &sl);
        CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    }
    /* ... but waits a spin does not win still block there: long waits, spin failures */
    m.avg_wait_ns = 100000;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &four);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    m.avg_wait_ns = 500;
    m.spin_fail = 0.6;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &four);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    m.spin_fail = 0;
    /* with oversub_waiters every waiter counts there (the old rule): back-off at 0.6 */
    mpd_alock_default_params_t fourw = four;
    fourw.oversub_waiters = 1;
    m.avg_waiting = 0.6;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &fourw);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp > 0 && sp < MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl > 1000 && sl < 50000);
    mpd__nvp = 4; /* as many VPs as CPUs: spare CPUs again, spin */
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &four);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    /* more VPs than the CPUs of this process: by default light contention still
     * spins; with oversub_block any contention not yet forgotten blocks, and once
     * the averages are 0 the lock spins again */
    cpu_set_t cs;
    CHECK_EQ_L(sched_getaffinity(0, sizeof cs, &cs), 0);
    mpd__nvp = CPU_COUNT(&cs) + 1;
    m.avg_waiting = 0.01;
    m.avg_wait_ns = 300;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, NULL);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    mpd_alock_default_params_t over = {
        0.25, 1.0, MPD_ALOCK_DEFAULT_SPIN_MAX_NS, 0, 50000, 20000, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &over);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    m.avg_waiting = 0;
    m.avg_wait_ns = 0;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &over);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    mpd__nvp = CPU_COUNT(&cs); /* VPs fit: the same contention spins */
    m.avg_waiting = 0.01;
    m.avg_wait_ns = 300;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &over);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    m.avg_wait_ns = 500;
    mpd__nvp = 1;
    m.avg_waiting = 0.6;
    m.spin_ns = sp;
    m.sleep_ns = sl; /* the same on one CPU: back-off */
    mpd_alock_default_policy(l, &m, &one);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp > 0 && sp < MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl > 1000 && sl < 50000);
    /* the back-off moves in eighths: waiter averages within one step leave the waiting
     * policy as it is (no rewrite, no adaptation counted); the next step moves it */
    mpd_alock_stats_t st0, st1;
    mpd_alock_stats(l, &st0);
    long sp0 = sp, sl0 = sl;
    for (int i = 0; i < 5; i++) {
        m.avg_waiting = 0.58 + 0.01 * i;
        m.spin_ns = sp;
        m.sleep_ns = sl;
        mpd_alock_default_policy(l, &m, &one);
        mpd_alock_get_waiting(l, &sp, &sl);
        CHECK(sp == sp0 && sl == sl0);
    }
    mpd_alock_stats(l, &st1);
    CHECK_EQ_L(st1.adaptations, st0.adaptations);
    m.avg_waiting = 0.75;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &one);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp < sp0 && sl > sl0);
    m.avg_waiting = 0.26;
    m.spin_ns = sp;
    m.sleep_ns = sl; /* less than half a step: spin */
    mpd_alock_default_policy(l, &m, &one);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    m.avg_waiting = 0;
    mpd_alock_destroy(l);

    /* scheduling policy: immutable while a waiter is blocked */
    mpd_alock_attr_init(&a, MPD_ALOCK_BLOCK);
    L = mpd_alock_create(&a);
    CHECK_EQ_L(mpd_alock_set_sched(L, NULL, 99), EINVAL);
    mpd_alock_lock(L);
    pthread_t t;
    pthread_create(&t, NULL, waiter, (void *)7L);
    wait_blocked(1);
    CHECK_EQ_L(mpd_alock_waiting(L), 1);
    CHECK_EQ_L(mpd_alock_set_sched(L, NULL, MPD_ALOCK_WAKE_LIFO), EBUSY);
    CHECK_EQ_L(mpd_alock_set_waiting(L, NULL, 0, MPD_ALOCK_FOREVER), 0); /* still mutable */
    mpd_alock_unlock(L);
    pthread_join(t, NULL);
    CHECK_EQ_L(mpd_alock_set_sched(L, NULL, MPD_ALOCK_WAKE_LIFO), 0);
    CHECK_EQ_L(mpd_alock_get_sched(L), MPD_ALOCK_WAKE_LIFO);
    mpd_alock_destroy(L);

    /* wake order */
    int o[3];
    run_order(MPD_ALOCK_WAKE_FIFO, o);
    CHECK(o[0] == 1 && o[1] == 2 && o[2] == 3);
    run_order(MPD_ALOCK_WAKE_LIFO, o);
    CHECK(o[0] == 3 && o[1] == 2 && o[2] == 1);
    run_order(MPD_ALOCK_WAKE_PRIORITY, o);
    CHECK(o[0] == 3 && o[1] == 2 && o[2] == 1);

    /* timed sleep: a waiter with a short sleep_ns wakes without an unlock */
    mpd_alock_attr_init(&a, MPD_ALOCK_BLOCK);
    a.sleep_ns = 200000; /* 0.2 ms */
    L = mpd_alock_create(&a);
    mpd_alock_lock(L);
    pthread_create(&t, NULL, waiter, (void *)1L);
    mpd_alock_stats_t st;
    for (int i = 0; i < 5000; i++) { /* up to 5 s on a loaded machine */
        mpd_alock_stats(L, &st);
        if (st.sleep_timeouts > 0)
            break;
        usleep(1000);
    }
    CHECK(st.sleep_timeouts > 0);
    mpd_alock_unlock(L);
    pthread_join(t, NULL);
    mpd_alock_destroy(L);

    /* monitor period, policy hook, and profile export */
    mpd_alock_attr_init(&a, MPD_ALOCK_SPIN);
    a.name = "probe";
    a.sample_every = 3;
    a.profile_cap = 8;
    a.policy = counting_policy;
    l = mpd_alock_create(&a);
    for (int i = 0; i < 30; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    CHECK_EQ_L(policy_calls, 10);
    CHECK_EQ_L(mpd_alock_set_sample_every(l, NULL, 0), EINVAL);
    for (int i = 0; i < 200; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    mpd_alock_sample_t s[16];
    size_t n = mpd_alock_profile(l, s, 16);
    CHECK(n >= 4 && n <= 8);
    for (size_t i = 1; i < n; i++)
        CHECK(s[i].t >= s[i - 1].t);
    CHECK(s[n - 1].t > 0);
    char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    CHECK_EQ_L(mpd_alock_profile_write(l, f), 0);
    fclose(f);
    CHECK(strncmp(buf, "# lock probe\n", 13) == 0);
    CHECK_EQ_L(strcmp(mpd_alock_name(l), "probe"), 0);
    mpd_alock_destroy(l);

    /* busy samples (somebody waits) update the averages every time but run the default
     * policy at every 4th only; a policy of one's own runs at every one */
    {
        mpd_alock_t *bl = mpd_alock_create(NULL);
        atomic_store(&bl->waiting, 1); /* as if a thread waited throughout */
        for (int i = 0; i < 80; i++) {
            mpd_alock_lock(bl);
            mpd_alock_unlock(bl);
        } /* 40 samples */
        CHECK_EQ_L((long)bl->policy_runs, 10);
        CHECK(bl->avg_waiting > 0.99);       /* every sample counted */
        bl->busy_samples = POLICY_BATCH_NOW; /* what a failed spin leaves: the next one runs it */
        for (int i = 0; i < 2; i++) {
            mpd_alock_lock(bl);
            mpd_alock_unlock(bl);
        }
        CHECK_EQ_L((long)bl->policy_runs, 11);
        CHECK_EQ_L(mpd_alock_set_policy(bl, NULL, counting_policy, NULL), 0);
        for (int i = 0; i < 8; i++) {
            mpd_alock_lock(bl);
            mpd_alock_unlock(bl);
        }
        CHECK_EQ_L((long)bl->policy_runs, 15);
        atomic_store(&bl->waiting, 0);
        mpd_alock_destroy(bl);
    }
    /* samples that see nothing new decay the averages as if one at a time (0.875 each):
     * the default policy gets them in batches, a policy of one's own at every sample */
    mpd_alock_attr_init(&a, MPD_ALOCK_ADAPTIVE);
    a.sample_every = 1;
    l = mpd_alock_create(&a);
    l->avg_waiting = 0.2;
    l->avg_wait_ns = 1000;
    l->spin_fail = 0.1;
    mpd_alock__set_loud(l, MPD_ALOCK__LOUD_WARM, 1);
    for (int i = 0; i < 16; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    double d16 = 1;
    for (int i = 0; i < 16; i++)
        d16 *= 0.875;
    CHECK(l->avg_wait_ns > 1000 * d16 - 1e-6 && l->avg_wait_ns < 1000 * d16 + 1e-6);
    CHECK(l->spin_fail > 0.1 * d16 - 1e-9 && l->spin_fail < 0.1 * d16 + 1e-9);
    CHECK(l->avg_waiting > 0.2 * d16 - 1e-9 && l->avg_waiting < 0.2 * d16 + 1e-9);
    for (int i = 0; i < 200; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    CHECK(l->avg_waiting == 0 && l->avg_wait_ns == 0 &&
          l->spin_fail == 0); /* settled: quiet again */
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    CHECK_EQ_L(mpd_alock_set_policy(l, NULL, counting_policy, NULL), 0);
    l->avg_wait_ns = 1000;
    mpd_alock__set_loud(l, MPD_ALOCK__LOUD_WARM, 1);
    policy_calls = 0;
    for (int i = 0; i < 3; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    CHECK_EQ_L(policy_calls, 3);
    CHECK(l->avg_wait_ns > 1000 * 0.875 * 0.875 * 0.875 - 1e-6 &&
          l->avg_wait_ns < 1000 * 0.875 * 0.875 * 0.875 + 1e-6);
    mpd_alock_destroy(l);

    /* the quiet check is one flag, kept right when the policy changes at run time: a
     * policy of one's own, installed on a settled (quiet) lock, sees every sample; back
     * to the default policy or none, the samples are quiet again (nothing runs) */
    mpd_alock_attr_init(&a, MPD_ALOCK_ADAPTIVE);
    a.sample_every = 1;
    a.profile_cap = 0;
    l = mpd_alock_create(&a);
    for (int i = 0; i < 10; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    CHECK_EQ_L(atomic_load(&l->loud), 0);
    CHECK_EQ_L(mpd_alock_set_policy(l, NULL, counting_policy, NULL), 0);
    CHECK_EQ_L(atomic_load(&l->loud), MPD_ALOCK__LOUD_POLICY);
    policy_calls = 0;
    for (int i = 0; i < 5; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    CHECK_EQ_L(policy_calls, 5);
    CHECK_EQ_L(mpd_alock_set_policy(l, NULL, mpd_alock_default_policy, NULL), 0);
    CHECK_EQ_L(atomic_load(&l->loud), 0);
    CHECK_EQ_L(mpd_alock_set_waiting(l, NULL, 1234, MPD_ALOCK_FOREVER), 0);
    for (int i = 0; i < 5; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK_EQ_L(sp, 1234); /* quiet: the default policy did not run */
    CHECK_EQ_L(mpd_alock_set_policy(l, NULL, counting_policy, NULL), 0);
    CHECK_EQ_L(mpd_alock_set_policy(l, NULL, NULL, NULL), 0); /* static: quiet too */
    CHECK_EQ_L(atomic_load(&l->loud), 0);
    policy_calls = 0;
    for (int i = 0; i < 5; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    CHECK_EQ_L(policy_calls, 0);
    /* warm averages make a sample loud whatever the policy, and settle back to quiet */
    l->avg_wait_ns = 100;
    mpd_alock__set_loud(l, MPD_ALOCK__LOUD_WARM, 1);
    CHECK_EQ_L(mpd_alock_set_policy(l, NULL, counting_policy, NULL), 0);
    CHECK_EQ_L(atomic_load(&l->loud), MPD_ALOCK__LOUD_WARM | MPD_ALOCK__LOUD_POLICY);
    CHECK_EQ_L(mpd_alock_set_policy(l, NULL, mpd_alock_default_policy, NULL), 0);
    CHECK_EQ_L(atomic_load(&l->loud), MPD_ALOCK__LOUD_WARM);
    for (int i = 0; i < 400; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    CHECK(l->avg_wait_ns == 0);
    CHECK_EQ_L(atomic_load(&l->loud), 0);
    /* no profile: no profile sample is ever due */
    mpd_alock_sample_t none[1];
    CHECK_EQ_L(mpd_alock_profile(l, none, 1), 0);
    mpd_alock_stats_t qs;
    mpd_alock_stats(l, &qs);
    CHECK(qs.samples >= 425);
    mpd_alock_destroy(l);
    /* created with a policy of one's own: loud from the start (every sample seen) */
    mpd_alock_attr_init(&a, MPD_ALOCK_BLOCK);
    a.policy = counting_policy;
    a.sample_every = 1;
    l = mpd_alock_create(&a);
    CHECK_EQ_L(atomic_load(&l->loud), MPD_ALOCK__LOUD_POLICY);
    policy_calls = 0;
    for (int i = 0; i < 7; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    CHECK_EQ_L(policy_calls, 7);
    mpd_alock_destroy(l);

    /* the profile follows its stride: with sample_every 1 and room for 8, 100 samples
     * thin it to every 16th, and the kept samples span the run */
    mpd_alock_attr_init(&a, MPD_ALOCK_SPIN);
    a.sample_every = 1;
    a.profile_cap = 8;
    l = mpd_alock_create(&a);
    for (int i = 0; i < 100; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    mpd_alock_sample_t ps[8];
    n = mpd_alock_profile(l, ps, 8); /* its own lock+unlock is sample 101 */
    CHECK(n >= 4 && n <= 8);
    CHECK_EQ_L(l->prof_stride, 16);
    mpd_alock_destroy(l);
    CHECK_DONE();
}
