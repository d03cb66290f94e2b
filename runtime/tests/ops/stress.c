/* stress.c: many processes on several VPs -- sends filtered by st, rendezvous with several servers, co fan-out; checks that nothing is lost or duplicated. */
#include "optest.h"

#define F "stress.mpd"
#define NGO 64
enum {
    CH,
    REQ,
    QUIT,
    DONE,
    PRODUCER,
    CONSUMER,
    SERVER,
    CLIENT,
    ADD1,
    GOWAIT,
    NEVER,
    GO,
    NOPS = GO + NGO
};
#define NPROD 4
#define NCONS 3
#define NMSG 400
#define NSERV 3
#define NCLI 4
#define NCALL 300
typedef struct S {
    mpd_res h;
} S;
struct inv_int {
    mpd_invb h;
    long a;
    long who;
};
struct inv_none {
    mpd_invb h;
};

static mpd_spinlock sumlk = MPD_SPINLOCK_INIT;
static long cons_sum[NCONS], cons_n[NCONS], served[NSERV];

static void producer(mpd_res *self, mpd_invb *ib)
{
    long me = ((struct inv_int *)ib)->a;
    for (long i = 0; i < NMSG; i++) {
        struct inv_int x = {.h.size = sizeof x, .a = me * NMSG + i};
        mpd_send_op(F, 1, &self->ops[CH], &x.h);
        if (i % 50 == 0)
            mpd_yield();
    }
    mpd_op_V(F, 2, &self->ops[DONE]);
}

static int st_mine(void *env, uint32_t arm, uint32_t k, mpd_invb *ib)
{
    (void)arm;
    (void)k;
    return ((struct inv_int *)ib)->a % NCONS == *(long *)env;
}

static void consumer(mpd_res *self, mpd_invb *ib)
{
    long me = ((struct inv_int *)ib)->a;
    mpd_op *ops[1] = {&self->ops[CH]};
    mpd_arm arm = {ops, 1, 1, 0, 1, 0};
    long want = 0;
    for (long v = 0; v < NPROD * NMSG; v++)
        want += v % NCONS == me;
    for (long i = 0; i < want; i++) {
        mpd_in in = {&arm, 1, 0, st_mine, NULL, &me, 0, 0};
        struct inv_int *g = (void *)mpd_in_wait(F, 3, &in);
        mpd_spin_lock(&sumlk);
        cons_sum[me] += g->a;
        cons_n[me]++;
        mpd_spin_unlock(&sumlk);
        mpd_in_done(&g->h);
    }
    mpd_op_V(F, 4, &self->ops[DONE]);
}

/* in req(x) returns x+1 -> ... [] quit() -> exit ni */
static void server(mpd_res *self, mpd_invb *ib)
{
    long me = ((struct inv_int *)ib)->a;
    mpd_op *r[1] = {&self->ops[REQ]}, *q[1] = {&self->ops[QUIT]};
    mpd_arm arms[2] = {{r, 1, 0, 0, 0, 0}, {q, 1, 0, 0, 0, 0}};
    for (;;) {
        mpd_in in = {arms, 2, 0, NULL, NULL, NULL, 0, 0};
        struct inv_int *g = (void *)mpd_in_wait(F, 5, &in);
        if (in.arm == 1) {
            mpd_in_done(&g->h);
            break;
        }
        g->a += 1;
        g->who = me;
        mpd_in_done(&g->h);
        served[me]++;
    }
    mpd_op_V(F, 6, &self->ops[DONE]);
}

static void client(mpd_res *self, mpd_invb *ib)
{
    long me = ((struct inv_int *)ib)->a;
    for (long i = 0; i < NCALL; i++) {
        struct inv_int x = {.h.size = sizeof x, .a = me * 100000 + i};
        mpd_call_op(F, 7, &self->ops[REQ], &x.h);
        if (x.a != me * 100000 + i + 1) {
            fprintf(stderr, "client %ld: wrong answer %ld\n", me, x.a);
            t_fail++;
        }
    }
    mpd_op_V(F, 8, &self->ops[DONE]);
}

static void add1(mpd_res *self, mpd_invb *ib)
{
    (void)self;
    ((struct inv_int *)ib)->a += 1;
}

/* receive go[i]; twice, the second time in an input statement over go[i]
 * and never() (a class-list waiter beside op-list ones) */
static long gosum;
static void gowait(mpd_res *self, mpd_invb *ib)
{
    long i = ((struct inv_int *)ib)->a;
    struct inv_int *g = (void *)mpd_receive_op(F, 20, &self->ops[GO + i]);
    long v = g->a;
    mpd_in_done(&g->h);
    mpd_op *a0[1] = {&self->ops[GO + i]}, *a1[1] = {&self->ops[NEVER]};
    mpd_arm arms[2] = {{a0, 1, 0, 0, 0, 0}, {a1, 1, 0, 0, 0, 0}};
    mpd_in in = {arms, 2, 0, NULL, NULL, NULL, 0, 0};
    g = (void *)mpd_in_wait(F, 21, &in);
    v += g->a;
    mpd_in_done(&g->h);
    mpd_spin_lock(&sumlk);
    gosum += v;
    mpd_spin_unlock(&sumlk);
    mpd_op_V(F, 22, &self->ops[DONE]);
}

static mpd_res *sres;
static void S_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    sres = self;
    mpd_op_input(self, CH, 3, 0);
    mpd_op_sem(F, 9, self, DONE, 1, 0);
    mpd_op_proc(self, PRODUCER, 1, producer, "S.producer", 0);
    mpd_op_proc(self, CONSUMER, 1, consumer, "S.consumer", 0);
    mpd_op_proc(self, SERVER, 1, server, "S.server", 0);
    mpd_op_proc(self, CLIENT, 1, client, "S.client", 0);
    mpd_op_proc(self, ADD1, 1, add1, "S.add1", MPD_OP_DIRECT);
    mpd_op_proc(self, GOWAIT, 1, gowait, "S.gowait", 0);
    mpd_op_input(self, GO, NGO, 0);
    mpd_op_input(self, NEVER, 1, 0);
}
static const mpd_respat S_pat = {"S", sizeof(S), NOPS, 0, S_init, NULL, F};

static void start(mpd_res *self, int op, long a)
{
    struct inv_int x = {.h.size = sizeof x, .a = a};
    mpd_send_op(F, 10, &self->ops[op], &x.h);
}

static void scenario(void *arg)
{
    (void)arg;
    mpd_create(F, 11, &S_pat, NULL);
    mpd_res *self = sres;
    for (long i = 0; i < NCONS; i++)
        start(self, CONSUMER, i);
    for (long i = 0; i < NPROD; i++)
        start(self, PRODUCER, i);
    for (long i = 0; i < NSERV; i++)
        start(self, SERVER, i);
    for (long i = 0; i < NCLI; i++)
        start(self, CLIENT, i);
    /* meanwhile: co fan-out of 200 calls */
    for (int round = 0; round < 5; round++) {
        mpd_co *co = mpd_co_begin();
        for (uint32_t i = 0; i < 40; i++) {
            struct inv_int x = {.h.size = sizeof x, .a = i};
            x.h.co_idx = i;
            mpd_co_invoke_op(F, 12, co, &self->ops[ADD1], &x.h, MPD_INV_CALL);
        }
        long sum = 0;
        int n = 0;
        mpd_invb *d;
        while ((d = mpd_co_wait(F, 13, co))) {
            CHECK_EQ(((struct inv_int *)d)->a, (long)d->co_idx + 1);
            sum += ((struct inv_int *)d)->a;
            n++;
            mpd_co_release(d);
        }
        mpd_co_end(co);
        CHECK_EQ(n, 40);
        CHECK_EQ(sum, 40 * 41 / 2);
    }
    for (int i = 0; i < NPROD + NCONS + NCLI; i++)
        mpd_op_P(F, 14, &self->ops[DONE]);
    /* 64 receivers on 64 ops: each send is handed to its own receiver */
    for (long i = 0; i < NGO; i++)
        start(self, GOWAIT, i);
    mpd_yield();
    for (long r = 0; r < 2; r++)
        for (long i = NGO - 1; i >= 0; i--) {
            struct inv_int x = {.h.size = sizeof x, .a = 1 + i};
            mpd_send_op(F, 17, &self->ops[GO + i], &x.h);
        }
    for (int i = 0; i < NGO; i++)
        mpd_op_P(F, 18, &self->ops[DONE]);
    CHECK_EQ(gosum, 2 * NGO * (NGO + 1) / 2);
    struct inv_none q = {.h.size = sizeof q};
    for (int i = 0; i < NSERV; i++)
        mpd_send_op(F, 15, &self->ops[QUIT], &q.h);
    for (int i = 0; i < NSERV; i++)
        mpd_op_P(F, 16, &self->ops[DONE]);

    long total = 0, n = 0;
    for (int c = 0; c < NCONS; c++) {
        total += cons_sum[c];
        n += cons_n[c];
    }
    long N = NPROD * NMSG;
    CHECK_EQ(n, N);
    CHECK_EQ(total, N * (N - 1) / 2);
    long nserved = 0;
    for (int s = 0; s < NSERV; s++)
        nserved += served[s];
    CHECK_EQ(nserved, NCLI * NCALL);
    CHECK_EQ(mpd_pending_op(&self->ops[CH]), 0);
    CHECK_EQ(mpd_pending_op(&self->ops[REQ]), 0);
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}

int main(void)
{
    int bad = 0;
    for (int nvp = 1; nvp <= 4; nvp *= 2) {
        int st = t_run_child(scenario, nvp);
        printf("stress (%d VP): %s\n", nvp, st ? "FAIL" : "ok");
        bad += st != 0;
    }
    return bad != 0;
}
