/* instmt.c: the in statement -- several arms, quantified arms, st, by, else, blocking and handoff, ?op inside st. */
#include "optest.h"

#define F "in.mpd"
enum {
    P,
    R,
    Q1,
    Q2,
    O,
    W,
    X,
    Y,
    Z,
    S,
    TERM,
    DONE,
    WAITER,
    COORD,
    SENDER,
    SEM1,
    SEM2,
    VLATER,
    CSEM,
    CALLER,
    CSEM2,
    PWAITER,
    VTWICE,
    NOPS
};
typedef struct T {
    mpd_res h;
} T;
struct inv_int {
    mpd_invb h;
    long a;
};
struct inv_none {
    mpd_invb h;
};

static void send_int(mpd_res *self, int op, long v)
{
    struct inv_int x = {.h.size = sizeof x, .a = v};
    mpd_send_op(F, 1, &self->ops[op], &x.h);
}

/* callbacks: env unused; the st/by expressions read the parameter */
static double by_a(void *env, uint32_t arm, uint32_t k, mpd_invb *ib)
{
    (void)env;
    (void)arm;
    (void)k;
    return (double)((struct inv_int *)ib)->a;
}
static double by_neg_a(void *env, uint32_t arm, uint32_t k, mpd_invb *ib)
{
    return -by_a(env, arm, k, ib);
}
static int st_true(void *env, uint32_t arm, uint32_t k, mpd_invb *ib)
{
    (void)env;
    (void)arm;
    (void)k;
    (void)ib;
    return 1;
}
static int st_gt15(void *env, uint32_t arm, uint32_t k, mpd_invb *ib)
{
    (void)env;
    (void)arm;
    (void)k;
    return ((struct inv_int *)ib)->a > 15;
}
static int st_eq(void *env, uint32_t arm, uint32_t k, mpd_invb *ib)
{
    (void)arm;
    (void)k;
    return ((struct inv_int *)ib)->a == *(long *)env;
}

/* in s(a) st a == 3 -> log(a) ni ; V(done) */
static void waiter_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    long want = 3;
    mpd_op *ops[1] = {&self->ops[S]};
    mpd_arm arm = {ops, 1, 1, 0, 1, 0};
    mpd_in in = {&arm, 1, 0, st_eq, NULL, &want, 0, 0};
    struct inv_int *g = (void *)mpd_in_wait(F, 30, &in);
    logv(g->a);
    mpd_in_done(&g->h);
    mpd_op_V(F, 31, &self->ops[DONE]);
}

/* in/sched: in terminate(delta) st ?terminate == 4 by -delta -> ...
 *           three more plain in terminate(delta) */
static mpd_op *term_op;
static int st_all_there(void *env, uint32_t arm, uint32_t k, mpd_invb *ib)
{
    (void)env;
    (void)arm;
    (void)k;
    (void)ib;
    return mpd_pending_op(term_op) == 4;
}
static void coord_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    mpd_op *ops[1] = {&self->ops[TERM]};
    mpd_arm arm = {ops, 1, 1, 1, 0, 0}; /* st reads ?terminate: not pure */
    for (int round = 0; round < 5; round++) {
        mpd_in in = {&arm, 1, 0, st_all_there, by_neg_a, NULL, 0, 0};
        struct inv_int *g = (void *)mpd_in_wait(F, 40, &in);
        logv(g->a);
        mpd_in_done(&g->h);
        for (int i = 0; i < 3; i++) {
            g = (void *)mpd_receive_op(F, 41, &self->ops[TERM]);
            logv(10 + g->a);
            mpd_in_done(&g->h);
        }
    }
    mpd_op_V(F, 42, &self->ops[DONE]);
}
static void sender_proc(mpd_res *self, mpd_invb *ib)
{
    long me = ((struct inv_int *)ib)->a;
    for (int i = 0; i < 5; i++) {
        struct inv_int x = {.h.size = sizeof x, .a = me};
        mpd_call_op(F, 50, &self->ops[TERM], &x.h);
    }
}

/* nap, then V(t) */
static void vlater_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    mpd_nap(10);
    mpd_op_V(F, 60, &self->ops[SEM2]);
}

/* call csem(); log 2 once answered */
static void caller_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    struct inv_none v = {.h.size = sizeof v};
    mpd_call_op(F, 80, &self->ops[CSEM], &v.h);
    logv(2);
    mpd_op_V(F, 81, &self->ops[DONE]);
}

/* P(csem2), log 3 once past it */
static void pwaiter_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    mpd_op_P(F, 90, &self->ops[CSEM2]);
    logv(3);
    mpd_op_V(F, 91, &self->ops[DONE]);
}

/* V(csem2) twice */
static void vtwice_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    mpd_op_V(F, 92, &self->ops[CSEM2]);
    mpd_op_V(F, 93, &self->ops[CSEM2]);
}

static void T_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mpd_op_input(self, P, DONE - P, 0);
    mpd_op_sem(F, 2, self, DONE, 1, 0);
    mpd_op_proc(self, WAITER, 1, waiter_proc, "T.waiter", 0);
    mpd_op_proc(self, COORD, 1, coord_proc, "T.coordinator", 0);
    mpd_op_proc(self, SENDER, 1, sender_proc, "T.sender", 0);
    mpd_op_sem(F, 3, self, SEM1, 2, 1); /* sem s = 1, t = 1 */
    mpd_op_proc(self, VLATER, 1, vlater_proc, "T.vlater", 0);
    mpd_op_sem(F, 4, self, CSEM, 1, 0); /* a parameterless op, counted */
    mpd_op_proc(self, CALLER, 1, caller_proc, "T.caller", 0);
    mpd_op_sem(F, 5, self, CSEM2, 1, 0);
    mpd_op_proc(self, PWAITER, 1, pwaiter_proc, "T.pwaiter", 0);
    mpd_op_proc(self, VTWICE, 1, vtwice_proc, "T.vtwice", 0);
}
static const mpd_respat T_pat = {"T", sizeof(T), NOPS, 0, T_init, NULL, F};

static mpd_res *tres;
static void get_self(mpd_res *self, mpd_invb *args)
{
    T_init(self, args);
    tres = self;
}
static const mpd_respat T_pat2 = {"T", sizeof(T), NOPS, 0, get_self, NULL, F};

static long take(mpd_in *in)
{
    struct inv_int *g = (void *)mpd_in_wait(F, 10, in);
    if (!g)
        return -1;
    long v = g->a;
    if (g->h.size == sizeof(struct inv_none))
        v = 1000 + g->h.op->idx; /* parameterless ops: log which op */
    mpd_in_done(&g->h);
    return v;
}

static void scenario(void *arg)
{
    (void)arg;
    (void)T_pat;
    mpd_create(F, 3, &T_pat2, NULL);
    mpd_res *self = tres;
    mpd_op **o = NULL;
    (void)o;

    /* by: least value first */
    send_int(self, P, 8888);
    send_int(self, P, 9999);
    send_int(self, P, 3333);
    send_int(self, P, 1111);
    {
        mpd_op *ops[1] = {&self->ops[P]};
        mpd_arm arm = {ops, 1, 0, 1, 1, 0};
        mpd_in in = {&arm, 1, 0, NULL, by_a, NULL, 0, 0};
        log_reset();
        for (int i = 0; i < 4; i++)
            logv(take(&in));
        LOG_IS(1111, 3333, 8888, 9999);
    }

    /* in r(c) by c -> [] p(i) -> : the arm with the oldest invocation goes first */
    send_int(self, R, 'x');
    send_int(self, R, 'z');
    send_int(self, R, 'c');
    send_int(self, R, 'a');
    send_int(self, P, 3142);
    {
        mpd_op *r[1] = {&self->ops[R]}, *p[1] = {&self->ops[P]};
        mpd_arm arms[2] = {{r, 1, 0, 1, 1, 0}, {p, 1, 0, 0, 0, 0}};
        mpd_in in = {arms, 2, 0, NULL, by_a, NULL, 0, 0};
        log_reset();
        for (int i = 0; i < 5; i++)
            logv(take(&in));
        LOG_IS('a', 'c', 'x', 'z', 3142);
    }

    /* in [i = 1 to 2] q[i](x) by x : per-op minimum, op of the oldest first */
    send_int(self, Q1, 'x');
    send_int(self, Q2, 'G');
    send_int(self, Q2, 'A');
    send_int(self, Q2, 'R');
    send_int(self, Q1, 'a');
    send_int(self, Q2, 'H');
    send_int(self, Q2, 'B');
    send_int(self, Q1, 'c');
    {
        mpd_op *q[2] = {&self->ops[Q1], &self->ops[Q2]};
        mpd_arm arm = {q, 2, 0, 1, 1, 0};
        mpd_in in = {&arm, 1, 0, NULL, by_a, NULL, 0, 0};
        log_reset();
        for (int i = 0; i < 8; i++) {
            logv(take(&in));
            logv(in.k);
        }
        LOG_IS('a', 0, 'c', 0, 'x', 0, 'A', 1, 'B', 1, 'G', 1, 'H', 1, 'R', 1);
    }

    /* st with else, then by */
    long vals[] = {14, 17, 15, 12, 16, 13};
    for (int i = 0; i < 6; i++)
        send_int(self, O, vals[i]);
    {
        mpd_op *ops[1] = {&self->ops[O]};
        mpd_arm st = {ops, 1, 1, 0, 1, 0};
        mpd_in in = {&st, 1, 1, st_gt15, NULL, NULL, 0, 0};
        log_reset();
        long v;
        while ((v = take(&in)) >= 0)
            logv(v);
        mpd_arm by = {ops, 1, 0, 1, 1, 0};
        mpd_in in2 = {&by, 1, 1, NULL, by_a, NULL, 0, 0};
        while ((v = take(&in2)) >= 0)
            logv(v);
        LOG_IS(17, 16, 12, 13, 14, 15);
    }

    /* plain arms: oldest first, whatever the arm order */
    {
        struct inv_none v = {.h.size = sizeof v};
        mpd_send_op(F, 4, &self->ops[W], &v.h);
        mpd_send_op(F, 4, &self->ops[X], &v.h);
        mpd_op *w[1] = {&self->ops[W]}, *x[1] = {&self->ops[X]};
        mpd_arm arms[2] = {{x, 1, 0, 0, 0, 0}, {w, 1, 0, 0, 0, 0}};
        mpd_in in = {arms, 2, 1, NULL, NULL, NULL, 0, 0};
        log_reset();
        logv(take(&in));
        logv(in.arm);
        logv(take(&in));
        logv(in.arm);
        logv(take(&in));
        LOG_IS(1000 + W, 1, 1000 + X, 0, -1);
    }

    /* a blocked st waiter gets exactly the invocation it accepts */
    {
        struct inv_none v = {.h.size = sizeof v};
        log_reset();
        mpd_send_op(F, 5, &self->ops[WAITER], &v.h);
        mpd_nap(20);
        send_int(self, S, 1);
        send_int(self, S, 2);
        mpd_nap(5);
        send_int(self, S, 3);
        mpd_op_P(F, 6, &self->ops[DONE]);
        LOG_IS(3);
        CHECK_EQ(mpd_pending_op(&self->ops[S]), 2);
    }

    /* in/sched: st over ?op and by over the parameter, with callers */
    {
        log_reset();
        term_op = &self->ops[TERM];
        struct inv_none v = {.h.size = sizeof v};
        mpd_send_op(F, 7, &self->ops[COORD], &v.h);
        for (long i = 1; i <= 4; i++) {
            struct inv_int s = {.h.size = sizeof s, .a = i};
            mpd_send_op(F, 8, &self->ops[SENDER], &s.h);
        }
        mpd_op_P(F, 9, &self->ops[DONE]);
        CHECK_EQ(log_count(), 20);
        for (int r = 0; r < 5; r++) {
            CHECK_EQ(t_log[4 * r], 4); /* the largest delta first */
            long s = 0;
            for (int i = 1; i < 4; i++)
                s += t_log[4 * r + i];
            CHECK_EQ(s, 36); /* then 1, 2, 3 */
        }
    }
    /* semaphores: P/V and ?s, then in s() [] t() (they become queues),
     * then a V from another process hands a token to the blocked in */
    {
        mpd_op *s1 = &self->ops[SEM1], *s2 = &self->ops[SEM2];
        CHECK_EQ(mpd_pending_op(s1), 1);
        mpd_op_V(F, 61, s1);
        mpd_op_V(F, 62, s2);
        CHECK_EQ(mpd_pending_op(s1), 2);
        mpd_op_P(F, 63, s1);
        CHECK_EQ(mpd_pending_op(s1), 1);
        mpd_op *a0[1] = {s1}, *a1[1] = {s2};
        mpd_arm arms[2] = {{a0, 1, 0, 0, 0, 0}, {a1, 1, 0, 0, 0, 0}};
        mpd_in in = {arms, 2, 1, NULL, NULL, NULL, 0, 0};
        int got[2] = {0, 0};
        mpd_invb *g;
        while ((g = mpd_in_wait(F, 64, &in)) != NULL) {
            got[in.arm]++;
            mpd_in_done(g);
        }
        CHECK_EQ(got[0], 1);
        CHECK_EQ(got[1], 2);
        CHECK_EQ(mpd_pending_op(s1) + mpd_pending_op(s2), 0);
        struct inv_none v = {.h.size = sizeof v};
        mpd_send_op(F, 65, &self->ops[VLATER], &v.h);
        in.has_else = 0;
        g = mpd_in_wait(F, 66, &in);
        mpd_in_done(g);
        CHECK_EQ(in.arm, 1);
        mpd_op_V(F, 67, s1); /* still P/V after the change */
        mpd_op_P(F, 68, s1);
        CHECK_EQ(mpd_pending_op(s1), 0);
    }
    /* one input statement over ops of two resources (through capabilities):
     * their classes merge; a blocked statement is handed arrivals from both */
    {
        mpd_res *self2;
        mpd_create(F, 70, &T_pat2, NULL);
        self2 = tres;
        tres = self;
        mpd_op *o1 = mpd_in_cap(F, 71, mpd_cap_of(self, X));
        mpd_op *o2 = mpd_in_cap(F, 72, mpd_cap_of(self2, X));
        struct inv_none v = {.h.size = sizeof v};
        mpd_send(F, 73, mpd_cap_of(self2, X), &v.h);
        mpd_send(F, 74, mpd_cap_of(self, X), &v.h);
        mpd_op *a0[1] = {o1}, *a1[1] = {o2};
        mpd_arm arms[2] = {{a0, 1, 0, 0, 0, 0}, {a1, 1, 0, 0, 0, 0}};
        mpd_in in = {arms, 2, 0, NULL, NULL, NULL, 0, 0};
        log_reset();
        for (int i = 0; i < 2; i++) {
            mpd_in_done(mpd_in_wait(F, 75, &in));
            logv(in.arm);
        }
        mpd_send_op(F, 76, &self2->ops[WAITER], &v.h); /* waits on S of self2 */
        mpd_send_op(F, 77, &self->ops[VLATER], &v.h);  /* V(t) of self later */
        mpd_op *b0[1] = {&self->ops[SEM2]}, *b1[1] = {&self2->ops[Q1]};
        mpd_arm arms2[2] = {{b0, 1, 0, 0, 0, 0}, {b1, 1, 0, 0, 0, 0}};
        mpd_in in2 = {arms2, 2, 0, NULL, NULL, NULL, 0, 0};
        mpd_in_done(mpd_in_wait(F, 78, &in2));
        logv(in2.arm);
        send_int(self2, S, 3); /* for the waiter */
        mpd_op_P(F, 79, &self2->ops[DONE]);
        LOG_IS(1, 0, 0, 3);
    }
    /* a call to a counted op waits until an input statement services it */
    {
        log_reset();
        struct inv_none v = {.h.size = sizeof v};
        mpd_op_V(F, 82, &self->ops[CSEM]); /* one token first */
        mpd_send_op(F, 83, &self->ops[CALLER], &v.h);
        mpd_nap(10);
        CHECK_EQ(log_count(), 0); /* still waiting */
        CHECK_EQ(mpd_pending_op(&self->ops[CSEM]), 2);
        mpd_op_P(F, 84, &self->ops[CSEM]); /* the token */
        logv(1);
        mpd_invb *g = mpd_receive_op(F, 85, &self->ops[CSEM]);
        mpd_in_done(g); /* answers the caller */
        mpd_op_P(F, 86, &self->ops[DONE]);
        LOG_IS(1, 2);
    }
    /* a P parked on a semaphore op (with one VP: inline, mpd/abi/handoff.h)
     * while an input statement with st turns the op into a queue: the two
     * V's that follow become invocations; the parked P, registered first,
     * gets the first, the statement the second (no naps: a pending timer
     * would keep the P off the inline path) */
    {
        log_reset();
        struct inv_none v = {.h.size = sizeof v};
        mpd_send_op(F, 94, &self->ops[PWAITER], &v.h);
        mpd_yield(); /* it parks in P */
        mpd_send_op(F, 95, &self->ops[VTWICE], &v.h);
        mpd_op *c0[1] = {&self->ops[CSEM2]};
        mpd_arm arm = {c0, 1, 1, 0, 1, 0}; /* st: always true */
        mpd_in in = {&arm, 1, 0, st_true, NULL, NULL, 0, 0};
        mpd_in_done(mpd_in_wait(F, 96, &in));
        logv(4);
        mpd_op_P(F, 97, &self->ops[DONE]);
        CHECK_EQ(log_count(), 2);
        CHECK_EQ(mpd_pending_op(&self->ops[CSEM2]), 0);
        if (mpd_nvp() == 1)
            LOG_IS(3, 4);
    }
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}

int main(void)
{
    return t_run_both("in", scenario) != 0;
}
