/* costmt.c: the co statement -- concurrent calls and sends, results and quantifier copies, nesting, noop, early exit. */
#include "optest.h"

#define F "co.mpd"
enum { PV, LOGP, SLOWOP, SERVER, REPLIER, NOPS };
typedef struct C {
    mpd_res h;
} C;
struct inv_pv {
    mpd_invb h;
    long a, b, t;
};
struct inv_int {
    mpd_invb h;
    long a;
};
struct inv_none {
    mpd_invb h;
};

/* op p(var int a, var int b) returns int t: t = a+b; a += 10; b *= 3 */
static void pv_proc(mpd_res *self, mpd_invb *ib_)
{
    (void)self;
    struct inv_pv *ib = (void *)ib_;
    ib->t = ib->a + ib->b;
    ib->a += 10;
    ib->b *= 3;
}
static void logp_proc(mpd_res *self, mpd_invb *ib)
{
    (void)self;
    logv(((struct inv_int *)ib)->a);
}
/* serves n calls of slowop, answering each after a nap */
static void server_proc(mpd_res *self, mpd_invb *ib)
{
    long n = ((struct inv_int *)ib)->a;
    for (long i = 0; i < n; i++) {
        struct inv_int *g = (void *)mpd_receive_op(F, 20, &self->ops[SLOWOP]);
        mpd_nap(5);
        g->a *= 2;
        mpd_in_done(&g->h);
    }
}
/* replies, then keeps running for a while */
static void replier_proc(mpd_res *self, mpd_invb *ib_)
{
    (void)self;
    struct inv_int *ib = (void *)ib_;
    ib->a = 77;
    ib = (void *)mpd_reply(F, 30, &ib->h);
    mpd_nap(20);
    logv(78);
}

static mpd_res *cres;
static void C_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    cres = self;
    mpd_op_proc(self, PV, 1, pv_proc, "C.p", MPD_OP_DIRECT);
    mpd_op_proc(self, LOGP, 1, logp_proc, "C.logp", MPD_OP_DIRECT);
    mpd_op_input(self, SLOWOP, 1, 0);
    mpd_op_proc(self, SERVER, 1, server_proc, "C.server", 0);
    mpd_op_proc(self, REPLIER, 1, replier_proc, "C.replier", 0);
}
static const mpd_respat C_pat = {"C", sizeof(C), NOPS, 0, C_init, NULL, F};

static void scenario(void *arg)
{
    (void)arg;
    mpd_create(F, 1, &C_pat, NULL);
    mpd_res *self = cres;

    /* co [i = 7 to 7] y = p(i, x) -> check i, x, y oc : results copied back */
    {
        long x = 743, y = 0, i = 7;
        mpd_co *co = mpd_co_begin();
        struct inv_pv b = {.h.size = sizeof b, .a = i, .b = x};
        b.h.co_arm = 0;
        b.h.co_idx = 0;
        mpd_co_invoke_op(F, 2, co, &self->ops[PV], &b.h, MPD_INV_CALL);
        b.a = b.b = -1; /* the block was copied */
        mpd_invb *d;
        int n = 0;
        while ((d = mpd_co_wait(F, 3, co))) {
            struct inv_pv *r = (void *)d;
            i = r->a;
            x = r->b;
            y = r->t;
            mpd_co_release(d);
            n++;
        }
        mpd_co_end(co);
        CHECK_EQ(n, 1);
        CHECK_EQ(i, 17);
        CHECK_EQ(x, 2229);
        CHECK_EQ(y, 750);
    }

    /* co of 8 direct-proc calls, 3 sends, 2 noop calls, 2 input-op calls:
     * every arm completes exactly once, the procs really ran */
    {
        log_reset();
        struct inv_none v = {.h.size = sizeof v};
        struct inv_int srv = {.h.size = sizeof srv, .a = 2};
        mpd_send_op(F, 4, &self->ops[SERVER], &srv.h);
        mpd_co *co = mpd_co_begin();
        int seen[5] = {0};
        long got = 0;
        for (uint32_t i = 0; i < 8; i++) {
            struct inv_int b = {.h.size = sizeof b, .a = 100 + i};
            b.h.co_arm = 0;
            b.h.co_idx = i;
            mpd_co_invoke_op(F, 5, co, &self->ops[LOGP], &b.h, MPD_INV_CALL);
        }
        for (uint32_t i = 0; i < 3; i++) {
            struct inv_int b = {.h.size = sizeof b, .a = 200 + i};
            b.h.co_arm = 1;
            b.h.co_idx = i;
            mpd_co_invoke(F, 6, co, mpd_cap_of(self, LOGP), &b.h, MPD_INV_SEND);
        }
        for (uint32_t i = 0; i < 2; i++) {
            v.h.co_arm = 2;
            v.h.co_idx = i;
            mpd_co_invoke(F, 7, co, mpd_cap_noop, &v.h, MPD_INV_CALL);
        }
        for (uint32_t i = 0; i < 2; i++) {
            struct inv_int b = {.h.size = sizeof b, .a = 5 + i};
            b.h.co_arm = 3;
            b.h.co_idx = i;
            mpd_co_invoke_op(F, 8, co, &self->ops[SLOWOP], &b.h, MPD_INV_CALL);
        }
        mpd_invb *d;
        while ((d = mpd_co_wait(F, 9, co))) {
            seen[d->co_arm]++;
            if (d->co_arm == 3)
                got += ((struct inv_int *)d)->a;
            mpd_co_release(d);
        }
        mpd_co_end(co);
        CHECK_EQ(seen[0], 8);
        CHECK_EQ(seen[1], 3);
        CHECK_EQ(seen[2], 2);
        CHECK_EQ(seen[3], 2);
        CHECK_EQ(got, 22);
        mpd_nap(10); /* let the sent procs finish */
        CHECK_EQ(log_count(), 11);
        CHECK_EQ(log_sum(), 8 * 100 + 28 + 3 * 200 + 3);
    }

    /* nested co, deterministic: 0 1 2 3 4 5 6 */
    {
        log_reset();
        logv(0);
        mpd_co *co = mpd_co_begin();
        struct inv_int b = {.h.size = sizeof b, .a = 1};
        mpd_co_invoke_op(F, 10, co, &self->ops[LOGP], &b.h, MPD_INV_CALL);
        mpd_invb *d;
        while ((d = mpd_co_wait(F, 11, co))) {
            mpd_co_release(d);
            logv(2);
            mpd_co *co2 = mpd_co_begin();
            b.a = 3;
            mpd_co_invoke_op(F, 12, co2, &self->ops[LOGP], &b.h, MPD_INV_CALL);
            mpd_invb *d2;
            while ((d2 = mpd_co_wait(F, 13, co2))) {
                mpd_co_release(d2);
                logv(4);
            }
            mpd_co_end(co2);
            logv(5);
        }
        mpd_co_end(co);
        logv(6);
        LOG_IS(0, 1, 2, 3, 4, 5, 6);
    }

    /* exit from a post-processing block: the co ends with calls pending;
     * they complete later on their own */
    {
        struct inv_int srv = {.h.size = sizeof srv, .a = 3};
        mpd_send_op(F, 14, &self->ops[SERVER], &srv.h);
        mpd_co *co = mpd_co_begin();
        for (uint32_t i = 0; i < 3; i++) {
            struct inv_int b = {.h.size = sizeof b, .a = i};
            b.h.co_idx = i;
            mpd_co_invoke_op(F, 15, co, &self->ops[SLOWOP], &b.h, MPD_INV_CALL);
        }
        mpd_invb *d = mpd_co_wait(F, 16, co);
        CHECK(d != NULL);
        CHECK_EQ(((struct inv_int *)d)->a, 2 * (long)d->co_idx);
        mpd_co_release(d);
        mpd_co_end(co); /* "exit" */
        mpd_nap(40);    /* the other two are answered */
        CHECK_EQ(mpd_pending_op(&self->ops[SLOWOP]), 0);
    }

    /* a co call answered by reply completes at the reply */
    {
        log_reset();
        mpd_co *co = mpd_co_begin();
        struct inv_int b = {.h.size = sizeof b, .a = 0};
        mpd_co_invoke_op(F, 17, co, &self->ops[REPLIER], &b.h, MPD_INV_CALL);
        mpd_invb *d = mpd_co_wait(F, 18, co);
        CHECK_EQ(((struct inv_int *)d)->a, 77);
        CHECK_EQ(log_count(), 0); /* the replier is still napping */
        mpd_co_release(d);
        CHECK(mpd_co_wait(F, 19, co) == NULL);
        mpd_co_end(co);
        mpd_nap(40);
        LOG_IS(78);
    }
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}

int main(void)
{
    return t_run_both("co", scenario) != 0;
}
