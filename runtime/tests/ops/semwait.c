/* semwait.c: a semaphore op's word while processes wait on it.  With one
 * VP a counted op's word is (fast << 32) | count, and while processes wait
 * in its own list it is the marker MPD__OPQ_WAITING, so the inline V needs
 * one test (mpd/abi/ops.h).  Checks: a waiter sends V to the handoff and gets
 * the unit; the last one handed over leaves count 0; several waiters are
 * served in order; the out-of-line P/V keep the same word; a merged class
 * (the locked paths) and an op turned into a queue under a waiter; a waiter
 * whose resource is destroyed; ?s reads 0 at the marker; with several VPs
 * the word never has `fast` set and never is the marker. */
#include "optest.h"

#define F "semwait.mpd"
enum { S, DONE, PW, PWSLOW, X, NOPS };
enum { BX, BPW, BRX, BNOPS };
typedef struct T {
    mpd_res h;
} T;
struct inv_id {
    mpd_invb h;
    long id;
};
struct inv_none {
    mpd_invb h;
};

static mpd_res *ares; /* resource A: S, DONE, the waiters */
static mpd_op *sop;   /* A's S, for B's waiter */

static uint64_t word(mpd_op *op)
{
    return __atomic_load_n(&((struct mpd__opq_hot *)op->q)->word, __ATOMIC_RELAXED);
}
#define ONE_VP (mpd_nvp() == 1)
/* what the word must be with one VP; with several, that fast is 0 and the
 * marker never shows */
#define CHECK_WORD(op, w1)                                                                         \
    do {                                                                                           \
        if (ONE_VP)                                                                                \
            CHECK_EQ(word(op), (w1));                                                              \
        else {                                                                                     \
            CHECK(word(op) < MPD__OPQ_FAST1);                                                      \
            CHECK(word(op) != MPD__OPQ_WAITING);                                                   \
        }                                                                                          \
    } while (0)
#define FAST1 MPD__OPQ_FAST1
#define WAITING MPD__OPQ_WAITING

/* P(s); log(id); V(done) -- inline P, or (PWSLOW) the out-of-line one */
static void pw_proc(mpd_res *self, mpd_invb *ib)
{
    long id = ((struct inv_id *)ib)->id;
    mpd_op_P(F, 10, &self->ops[S]);
    logv(id);
    mpd_op_V(F, 11, &self->ops[DONE]);
}
static void pwslow_proc(mpd_res *self, mpd_invb *ib)
{
    long id = ((struct inv_id *)ib)->id;
    mpd__op_P_slow(F, 12, &self->ops[S]);
    logv(id);
    mpd__op_V_slow(F, 13, &self->ops[DONE]);
}
static void A_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mpd_op_sem(F, 1, self, S, 2, 0);
    mpd_op_proc(self, PW, 1, pw_proc, "A.pw", 0);
    mpd_op_proc(self, PWSLOW, 1, pwslow_proc, "A.pwslow", 0);
    mpd_op_input(self, X, 1, 0);
    ares = self;
}
static const mpd_respat A_pat = {"A", sizeof(T), NOPS, 0, A_init, NULL, F};

/* B: a process that waits on A's S (and is killed with B) */
static void bpw_proc(mpd_res *self, mpd_invb *ib)
{
    (void)self;
    (void)ib;
    mpd_op_P(F, 20, sop);
    logv(99); /* never: it is killed while waiting */
}
/* B: a process that receives from A's X (killed with B) */
static void brx_proc(mpd_res *self, mpd_invb *ib)
{
    (void)self;
    (void)ib;
    mpd_in_done(mpd_receive_op(F, 21, &ares->ops[X]));
    logv(98); /* never */
}
static void B_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mpd_op_input(self, BX, 1, 0);
    mpd_op_proc(self, BPW, 1, bpw_proc, "B.pw", 0);
    mpd_op_proc(self, BRX, 1, brx_proc, "B.rx", 0);
}
static const mpd_respat B_pat = {"B", sizeof(T), BNOPS, 0, B_init, NULL, F};

/* Let the processes just started run until they block. */
static void settle(void)
{
    if (ONE_VP)
        mpd_yield(); /* no nap: a pending timer keeps P off the inline path */
    else
        mpd_nap(30);
}

static void start_waiter(mpd_res *a, int op, long id)
{
    struct inv_id m = {.h.size = sizeof m, .id = id};
    mpd_send_op(F, 30, &a->ops[op], &m.h);
}

static void scenario(void *arg)
{
    (void)arg;
    mpd_create(F, 2, &A_pat, NULL);
    mpd_res *a = ares;
    mpd_op *s = &a->ops[S], *done = &a->ops[DONE];
    sop = s;
    CHECK_WORD(s, FAST1);

    /* one waiter: V takes the slow path and hands it the unit */
    log_reset();
    start_waiter(a, PW, 1);
    settle();
    CHECK_WORD(s, WAITING);
    CHECK_EQ(mpd_pending_op(s), 0);
    mpd_op_V(F, 40, s);
    mpd_op_P(F, 41, done);
    LOG_IS(1);
    CHECK_WORD(s, FAST1);
    CHECK_EQ(mpd_pending_op(s), 0);
    mpd_op_V(F, 42, s);
    mpd_op_V(F, 43, s);
    CHECK_WORD(s, FAST1 + 2);
    CHECK_EQ(mpd_pending_op(s), 2);
    mpd_op_P(F, 44, s);
    mpd_op_P(F, 45, s);
    CHECK_WORD(s, FAST1);

    /* three waiters (inline and out-of-line P): served in order, the
     * marker stays until the last is handed its unit */
    log_reset();
    start_waiter(a, PW, 1);
    settle();
    start_waiter(a, PWSLOW, 2);
    settle();
    start_waiter(a, PW, 3);
    settle();
    CHECK_WORD(s, WAITING);
    mpd_op_V(F, 50, s);
    CHECK_WORD(s, WAITING);
    mpd__op_V_slow(F, 51, s);
    CHECK_WORD(s, WAITING);
    CHECK_EQ(mpd_pending_op(s), 0);
    mpd_op_V(F, 52, s);
    CHECK_WORD(s, FAST1);
    for (int i = 0; i < 3; i++)
        mpd_op_P(F, 53, done);
    if (ONE_VP)
        LOG_IS(1, 2, 3);
    else
        CHECK_EQ(log_sum(), 6);
    mpd__op_V_slow(F, 54, s); /* nobody waits: a unit */
    CHECK_WORD(s, FAST1 + 1);
    mpd__op_P_slow(F, 55, s);
    CHECK_WORD(s, FAST1);

    /* a waiter whose resource is destroyed: it is retired, and the units
     * of later V's are all still there for P */
    log_reset();
    mpd_cap bc = mpd_create(F, 60, &B_pat, NULL);
    struct inv_none v = {.h.size = sizeof v};
    mpd_send(F, 61, mpd_cap_op_of(bc, BPW), &v.h);
    settle();
    CHECK_WORD(s, WAITING);
    mpd_destroy(F, 62, bc);
    mpd_op_V(F, 63, s);
    mpd_op_V(F, 64, s);
    settle();
    CHECK_EQ(mpd_pending_op(s), 2);
    CHECK_WORD(s, FAST1 + 2);
    mpd_op_P(F, 65, s);
    mpd_op_P(F, 66, s);
    CHECK_EQ(mpd_pending_op(s), 0);
    CHECK_WORD(s, FAST1);
    CHECK_EQ(log_count(), 0);
    /* the same for a receiver killed while it waits on a plain op: the
     * message it is handed arrives again */
    {
        mpd_cap b3 = mpd_create(F, 67, &B_pat, NULL);
        mpd_send(F, 68, mpd_cap_op_of(b3, BRX), &v.h);
        settle();
        mpd_destroy(F, 69, b3);
        struct inv_id m = {.h.size = sizeof m, .id = 42};
        mpd_send_op(F, 69, &a->ops[X], &m.h);
        settle();
        CHECK_EQ(mpd_pending_op(&a->ops[X]), 1);
        struct inv_id *g = (void *)mpd_receive_op(F, 69, &a->ops[X]);
        CHECK_EQ(g->id, 42);
        mpd_in_done(&g->h);
        CHECK_EQ(log_count(), 0);
    }

    /* A's class merged with B2's (an input statement over X of both): S
     * keeps its word, its P and V take the locked paths */
    {
        mpd_cap b2 = mpd_create(F, 70, &B_pat, NULL);
        mpd_send(F, 71, mpd_cap_op_of(b2, BX), &v.h);
        mpd_op *o1 = &a->ops[X], *o2 = mpd_in_cap(F, 72, mpd_cap_op_of(b2, BX));
        mpd_op *a0[1] = {o1}, *a1[1] = {o2};
        mpd_arm arms[2] = {{a0, 1, 0, 0, 0, 0}, {a1, 1, 0, 0, 0, 0}};
        mpd_in in = {arms, 2, 0, NULL, NULL, NULL, 0, 0};
        mpd_in_done(mpd_in_wait(F, 73, &in));
        CHECK_EQ(in.arm, 1);
        log_reset();
        start_waiter(a, PW, 5);
        settle();
        start_waiter(a, PW, 6);
        settle();
        CHECK_WORD(s, WAITING);
        CHECK_EQ(mpd_pending_op(s), 0);
        mpd_op_V(F, 74, s);
        CHECK_WORD(s, WAITING);
        mpd_op_V(F, 75, s);
        CHECK_WORD(s, FAST1);
        mpd_op_P(F, 76, done);
        mpd_op_P(F, 77, done);
        CHECK_EQ(log_sum(), 11);
        mpd_op_V(F, 78, s);
        CHECK_WORD(s, FAST1 + 1);
        mpd_op_P(F, 79, s);
        CHECK_WORD(s, FAST1);
    }

    /* S turned into a queue while a process waits on it: the word drops
     * to a plain count; the waiter gets the next V */
    {
        log_reset();
        start_waiter(a, PW, 7);
        settle();
        CHECK_WORD(s, WAITING);
        mpd_op *c0[1] = {s}, *c1[1] = {&a->ops[X]};
        mpd_arm arms[2] = {{c0, 1, 0, 0, 0, 0}, {c1, 1, 0, 0, 0, 0}};
        mpd_in in = {arms, 2, 1, NULL, NULL, NULL, 0, 0}; /* with else */
        CHECK(mpd_in_wait(F, 80, &in) == NULL);           /* uncounts S */
        CHECK_EQ(word(s), 0);
        mpd_op_V(F, 81, s); /* to the waiter */
        mpd_op_P(F, 82, done);
        LOG_IS(7);
        CHECK_EQ(mpd_pending_op(s), 0);
        mpd_op_V(F, 83, s);
        CHECK_EQ(mpd_pending_op(s), 1);
        CHECK_EQ(word(s), 1);
        mpd_op_P(F, 84, s);
        CHECK_EQ(mpd_pending_op(s), 0);
    }
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}

int main(void)
{
    return t_run_both("semwait", scenario) != 0;
}
