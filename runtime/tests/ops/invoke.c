/* invoke.c: call/send to procs and input ops, rendezvous, reply, forward, ?op, noop/null -- through the ABI as generated code uses it. */
#include "optest.h"

#define F "invoke.mpd"

/* resource R
 *   op dbl(int a) returns int          proc, direct
 *   op slow(int a) returns int         proc with reply
 *   op q(int a)                        input
 *   op r(int a) returns int            input (rendezvous)
 *   sem done
 *   op server()                        proc: in r(a) returns x -> x = a*10 ni  (x3)
 *   op p1(res int j) returns int       proc: forward p2(j); j = 1111; result = 1000; V(p2wait)
 *   op p2(res int j) returns int       proc: j = 2222; P(p2wait); result = 2000
 *   sem p2wait
 *   op prime() returns int             input
 *   op seven() returns int             proc, direct: 7
 *   op server2()                       proc: in prime() returns j -> j = 3; forward seven(); j = 11 ni
 */
enum { DBL, SLOW, Q, RR, DONE, SERVER, P1, P2, P2WAIT, PRIME, SEVEN, SERVER2, SERVER3, NOPS };
typedef struct R {
    mpd_res h;
    int counter;
} R;
struct inv_int {
    mpd_invb h;
    int a;
    int ret;
};
struct inv_none {
    mpd_invb h;
};

static void dbl_proc(mpd_res *self, mpd_invb *ib_)
{
    (void)self;
    struct inv_int *ib = (void *)ib_;
    ib->ret = 2 * ib->a;
}

static void slow_proc(mpd_res *self, mpd_invb *ib_)
{
    struct inv_int *ib = (void *)ib_;
    ib->ret = ib->a + 1;
    ib = (void *)mpd_reply(F, 10, &ib->h);
    ib->ret = 999; /* not seen by the caller */
    logv(100 + ib->a);
    mpd_op_V(F, 11, &self->ops[DONE]);
}

static void server_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    for (int i = 0; i < 3; i++) {
        struct inv_int *x = (void *)mpd_receive_op(F, 20, &self->ops[RR]);
        x->ret = x->a * 10;
        mpd_in_done(&x->h);
    }
}

static void p1_proc(mpd_res *self, mpd_invb *ib_)
{
    struct inv_int *ib = (void *)ib_;
    struct inv_int n = {.h.size = sizeof n, .a = ib->a};
    ib = (void *)mpd_forward(F, 30, &ib->h, mpd_cap_of(self, P2), &n.h);
    ib->a = 1111;
    ib->ret = 1000;
    mpd_op_V(F, 31, &self->ops[P2WAIT]);
}

static void p2_proc(mpd_res *self, mpd_invb *ib_)
{
    struct inv_int *ib = (void *)ib_;
    ib->a = 2222;
    mpd_op_P(F, 40, &self->ops[P2WAIT]);
    ib->ret = 2000;
}

static void seven_proc(mpd_res *self, mpd_invb *ib_)
{
    (void)self;
    ((struct inv_int *)ib_)->ret = 7;
}

static void server2_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    struct inv_int *x = (void *)mpd_receive_op(F, 50, &self->ops[PRIME]);
    x->ret = 3;
    struct inv_int n = {.h.size = sizeof n};
    x = (void *)mpd_forward(F, 51, &x->h, mpd_cap_of(self, SEVEN), &n.h);
    x->ret = 11;
    mpd_in_done(&x->h);
}

/* in r(a) returns x -> x = a*10; reply; x = -1 (not seen) ni, then V(done) */
static void server3_proc(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    struct inv_int *x = (void *)mpd_receive_op(F, 55, &self->ops[RR]);
    x->ret = x->a * 10;
    x = (void *)mpd_reply(F, 56, &x->h);
    x->ret = -1;
    mpd_in_done(&x->h);
    mpd_op_V(F, 57, &self->ops[DONE]);
}

static void R_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mpd_op_proc(self, DBL, 1, dbl_proc, "R.dbl", MPD_OP_DIRECT);
    mpd_op_proc(self, SLOW, 1, slow_proc, "R.slow", 0);
    mpd_op_input(self, Q, 1, 0);
    mpd_op_input(self, RR, 1, 0);
    mpd_op_sem(F, 1, self, DONE, 1, 0);
    mpd_op_proc(self, SERVER, 1, server_proc, "R.server", MPD_OP_SENDONLY);
    mpd_op_proc(self, P1, 1, p1_proc, "R.p1", 0);
    mpd_op_proc(self, P2, 1, p2_proc, "R.p2", 0);
    mpd_op_sem(F, 1, self, P2WAIT, 1, 0);
    mpd_op_input(self, PRIME, 1, 0);
    mpd_op_proc(self, SEVEN, 1, seven_proc, "R.seven", MPD_OP_DIRECT);
    mpd_op_proc(self, SERVER2, 1, server2_proc, "R.server2", 0);
    mpd_op_proc(self, SERVER3, 1, server3_proc, "R.server3", 0);
}
static const mpd_respat R_pat = {"R", sizeof(R), NOPS, 0, R_init, NULL, F};

static void scenario(void *arg)
{
    (void)arg;
    mpd_cap rc = mpd_create(F, 60, &R_pat, NULL);
    struct inv_int x;

    /* direct call through a capability */
    x.h.size = sizeof x;
    x.a = 21;
    mpd_call(F, 61, mpd_cap_op_of(rc, DBL), &x.h);
    CHECK_EQ(x.ret, 42);

    /* a call answered early by reply: the proc goes on by itself */
    x.a = 5;
    mpd_call(F, 62, mpd_cap_op_of(rc, SLOW), &x.h);
    CHECK_EQ(x.ret, 6);
    mpd_res *r = NULL;
    (void)r;
    struct inv_none v = {.h.size = sizeof v};
    /* P(done) via receive on the sem op's capability */
    mpd_op *done = mpd_in_cap(F, 63, mpd_cap_op_of(rc, DONE));
    mpd_in_done(mpd_receive_op(F, 63, done));
    CHECK(log_count() == 1 && t_log[0] == 105);

    /* sends to an input op queue up in order; ?op counts them */
    for (int i = 1; i <= 3; i++) {
        x.a = i;
        mpd_send(F, 64, mpd_cap_op_of(rc, Q), &x.h);
    }
    CHECK_EQ(mpd_pending(F, 65, mpd_cap_op_of(rc, Q)), 3);
    mpd_op *q = mpd_in_cap(F, 66, mpd_cap_op_of(rc, Q));
    for (int i = 1; i <= 3; i++) {
        struct inv_int *g = (void *)mpd_receive_op(F, 67, q);
        CHECK_EQ(g->a, i);
        mpd_in_done(&g->h);
    }
    CHECK_EQ(mpd_pending_op(q), 0);

    /* rendezvous with a server process */
    mpd_send(F, 68, mpd_cap_op_of(rc, SERVER), &v.h);
    for (int i = 1; i <= 3; i++) {
        x.a = i;
        mpd_call(F, 69, mpd_cap_op_of(rc, RR), &x.h);
        CHECK_EQ(x.ret, 10 * i);
    }

    /* forward from a proc: the result and res parameter come from p2 */
    x.a = 0;
    x.ret = 0;
    mpd_call(F, 70, mpd_cap_op_of(rc, P1), &x.h);
    CHECK_EQ(x.ret, 2000);
    CHECK_EQ(x.a, 2222);

    /* forward from an input statement to a direct proc */
    mpd_send(F, 71, mpd_cap_op_of(rc, SERVER2), &v.h);
    x.ret = 0;
    mpd_call(F, 72, mpd_cap_op_of(rc, PRIME), &x.h);
    CHECK_EQ(x.ret, 7);

    /* reply in an in arm serving a call */
    mpd_send(F, 76, mpd_cap_op_of(rc, SERVER3), &v.h);
    x.a = 9;
    mpd_call(F, 77, mpd_cap_op_of(rc, RR), &x.h);
    CHECK_EQ(x.ret, 90);
    mpd_in_done(mpd_receive_op(F, 78, done));

    /* noop: call and send do nothing, ?noop is 0 */
    mpd_call(F, 73, mpd_cap_noop, &x.h);
    mpd_send(F, 74, mpd_cap_noop, &x.h);
    CHECK_EQ(mpd_pending(F, 75, mpd_cap_noop), 0);

    /* capabilities compare by value */
    CHECK(mpd_cap_eq(mpd_cap_op_of(rc, Q), mpd_cap_op_of(rc, Q)));
    CHECK(!mpd_cap_eq(mpd_cap_op_of(rc, Q), mpd_cap_op_of(rc, RR)));
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}

/* ---- runtime errors ------------------------------------------------------ */

static void err_call_null(void *a)
{
    (void)a;
    struct inv_none v = {.h.size = sizeof v};
    mpd_call("e.mpd", 7, mpd_cap_null, &v.h);
}
static void err_call_uninit(void *a)
{
    (void)a;
    struct inv_none v = {.h.size = sizeof v};
    mpd_cap c = MPD_CAP_INVALID_INIT;
    mpd_call("e.mpd", 8, c, &v.h);
}
static void err_recv_null(void *a)
{
    (void)a;
    mpd_in_cap("e.mpd", 9, mpd_cap_null);
}
static void err_query_null(void *a)
{
    (void)a;
    mpd_pending("e.mpd", 10, mpd_cap_null);
}
static void err_in_proc(void *a)
{
    (void)a;
    mpd_cap rc = mpd_create(F, 1, &R_pat, NULL);
    mpd_in_cap("e.mpd", 11, mpd_cap_op_of(rc, DBL));
}
static void err_noop_recv(void *a)
{
    (void)a;
    mpd_receive_op("e.mpd", 12, mpd_in_cap("e.mpd", 12, mpd_cap_noop));
}
static void err_sendonly(void *a)
{
    (void)a;
    mpd_cap rc = mpd_create(F, 1, &R_pat, NULL);
    struct inv_none v = {.h.size = sizeof v};
    mpd_call("e.mpd", 13, mpd_cap_op_of(rc, SERVER), &v.h);
}

static void err_op_index(void *a)
{
    (void)a;
    CHECK_EQ(mpd_op_index("e.mpd", 14, 3, 1, 3), 2);
    mpd_op_index("e.mpd", 14, 5, 1, 3);
}

int main(void)
{
    int bad = t_run_both("invoke", scenario);
    bad += t_expect_err("call null", err_call_null, 1,
                        "RTS abort: file e.mpd, line 7:\n   invalid operation capability");
    bad += t_expect_err("call uninitialised", err_call_uninit, 1,
                        "line 8:\n   invalid operation capability");
    bad += t_expect_err("receive null", err_recv_null, 1, "line 9:\n   null operation capability");
    bad += t_expect_err("?null", err_query_null, 1, "line 10:\n   null operation capability");
    bad += t_expect_err("receive from proc", err_in_proc, 1,
                        "line 11:\n   cannot input from a proc operation");
    bad += t_expect_err("receive from noop blocks", err_noop_recv, 0,
                        "RTS warning: blocked process: main : file e.mpd, line 12");
    bad += t_expect_err("call a send-only op", err_sendonly, 1,
                        "line 13:\n   cannot call a send-only operation");
    bad += t_expect_err("op array subscript", err_op_index, 1,
                        "line 14:\n   illegal subscript [5] of array with bounds [1:3]");
    return bad != 0;
}
