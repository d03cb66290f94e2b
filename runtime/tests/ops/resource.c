/* resource.c: create/destroy with initial and final code, reply in initial code, globals, local and dynamic ops, program end, and their runtime errors. */
#include "optest.h"

#define F "res.mpd"

/* resource D(int n): initial code logs n, final code logs -n */
typedef struct D {
    mpd_res h;
    long n;
} D;
struct D_args {
    mpd_invb h;
    long n;
};
enum { D_GET, D_NOPS };
struct inv_int {
    mpd_invb h;
    long a;
};
struct inv_none {
    mpd_invb h;
};
static void D_get(mpd_res *self, mpd_invb *ib)
{
    ((struct inv_int *)ib)->a = ((D *)self)->n;
}
static void D_init(mpd_res *self_, mpd_invb *args)
{
    D *self = (D *)self_;
    mpd_op_proc(self_, D_GET, 1, D_get, "D.get", MPD_OP_DIRECT);
    self->n = ((struct D_args *)args)->n;
    logv(self->n);
}
static void D_final(mpd_res *self)
{
    logv(-((D *)self)->n);
    if (!mpd_cap_eq(mpd_myresource(), mpd_rescap_of(self))) /* final process */
        logv(999999);
}
static const mpd_respat D_pat = {"D", sizeof(D), D_NOPS, 0, D_init, D_final, F};

static mpd_cap create_D(long n)
{
    struct D_args a = {.h.size = sizeof a, .n = n};
    return mpd_create(F, 1, &D_pat, &a.h);
}

/* resource E: replies in its initial code, then goes on */
typedef struct E {
    mpd_res h;
} E;
static void E_init(mpd_res *self, mpd_invb *args)
{
    (void)self;
    logv(1);
    args = mpd_reply(F, 2, args);
    mpd_nap(10);
    logv(3);
}
static const mpd_respat E_pat = {"E", sizeof(E), 0, 0, E_init, NULL, F};

/* global G: counts its instantiations; replies in its initial code */
static int g_inits;
typedef struct G {
    mpd_res h;
    long val;
} G;
static void G_init(mpd_res *self, mpd_invb *args)
{
    g_inits++;
    mpd_nap(10); /* importers wait meanwhile */
    ((G *)self)->val = 42;
    mpd_reply(F, 3, args);
}
static void G_final(mpd_res *self)
{
    (void)self;
    fprintf(stderr, "final G\n");
}
static const mpd_respat G_pat = {"G", sizeof(G), 0, MPD_RES_GLOBAL, G_init, G_final, F};

/* global H imports G in its initial code: at the end H's final runs first */
enum { H_SERVE, H_SERVER, H_NOPS };
static void H_server(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    mpd_in_done(mpd_receive_op(F, 6, &self->ops[H_SERVE])); /* forever */
}
static void H_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mpd_op_input(self, H_SERVE, 1, 0);
    mpd_op_proc(self, H_SERVER, 1, H_server, "H.server", 0);
    struct mpd_inv_none v = {.h.size = sizeof v};
    mpd_send_op(F, 7, &self->ops[H_SERVER], &v.h); /* not reported at the end */
    mpd_global(F, 5, &G_pat);
}
static void H_final(mpd_res *self)
{
    (void)self;
    fprintf(stderr, "final H\n");
}
static const mpd_respat H_pat = {"H", sizeof(mpd_res), H_NOPS, MPD_RES_GLOBAL, H_init, H_final, F};

enum { M_IMPORTER, M_DONE, M_NOPS };
static void importer(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    G *g = (G *)mpd_global(F, 4, &G_pat);
    logv(g->val);
    mpd_op_V(F, 5, &self->ops[M_DONE]);
}
static mpd_res *mres;
static void M_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mres = self;
    mpd_op_proc(self, M_IMPORTER, 1, importer, "M.importer", 0);
    mpd_op_sem(F, 6, self, M_DONE, 1, 0);
}
static const mpd_respat M_pat = {"M", sizeof(mpd_res), M_NOPS, 0, M_init, NULL, F};

static void scenario(void *arg)
{
    (void)arg;
    /* destroy/easy: initial code before create returns, final at destroy */
    log_reset();
    logv(55);
    mpd_cap c = create_D(44);
    logv(66);
    struct inv_int x = {.h.size = sizeof x};
    mpd_call(F, 7, mpd_cap_op_of(c, D_GET), &x.h);
    logv(x.a);
    mpd_destroy(F, 8, c);
    logv(77);
    LOG_IS(55, 44, 66, 44, -44, 77);

    /* many instances at once */
    log_reset();
    mpd_cap cs[10];
    for (int i = 0; i < 10; i++)
        cs[i] = create_D(i + 1);
    for (int i = 0; i < 10; i++)
        mpd_destroy(F, 9, cs[i]);
    CHECK_EQ(log_count(), 20);
    CHECK_EQ(log_sum(), 0);

    /* reply in initial code: create returns while the body goes on */
    log_reset();
    mpd_create(F, 10, &E_pat, NULL);
    logv(2);
    mpd_nap(30);
    LOG_IS(1, 2, 3);

    /* a global is created once, on first import, by concurrent importers */
    log_reset();
    mpd_create(F, 11, &M_pat, NULL);
    struct inv_none v = {.h.size = sizeof v};
    for (int i = 0; i < 3; i++)
        mpd_send_op(F, 12, &mres->ops[M_IMPORTER], &v.h);
    for (int i = 0; i < 3; i++)
        mpd_op_P(F, 13, &mres->ops[M_DONE]);
    CHECK_EQ(g_inits, 1);
    LOG_IS(42, 42, 42);
    CHECK(mpd_global(F, 14, &G_pat) == mpd_global(F, 14, &G_pat));

    /* local ops: a capability outlives the block */
    mpd_res *self = mpd_ops_local(NULL, 2);
    mpd_op_input(self, 0, 2, 0);
    mpd_cap lc = mpd_cap_of(self, 1);
    x.a = 8888;
    mpd_send(F, 15, lc, &x.h);
    struct inv_int *g = (void *)mpd_receive_op(F, 16, &self->ops[1]);
    CHECK_EQ(g->a, 8888);
    mpd_in_done(&g->h);
    mpd_ops_local_end(self);

    /* dynamic ops: new(op (int)), new([3] sem) destroyed one by one */
    mpd_cap d = mpd_op_new(F, 17, NULL, 1, 0);
    mpd_send(F, 18, d, &x.h);
    CHECK_EQ(mpd_pending(F, 19, d), 1);
    mpd_op_destroy(F, 20, d);
    mpd_cap s3 = mpd_op_new(F, 21, NULL, 3, MPD_OP_SEMAPHORE);
    mpd_op *s1 = mpd_in_cap(F, 22, mpd_cap_op_of(s3, 1));
    mpd_op_V(F, 23, s1);
    mpd_op_V(F, 23, s1);
    CHECK_EQ(mpd_pending(F, 24, mpd_cap_op_of(s3, 1)), 2);
    mpd_op_P(F, 25, s1);
    CHECK_EQ(mpd_pending(F, 24, mpd_cap_op_of(s3, 1)), 1);
    for (uint32_t i = 0; i < 3; i++)
        mpd_op_destroy(F, 26, mpd_cap_op_of(s3, i));
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}

/* ---- program end and errors ----------------------------------------------- */

static void main_final(mpd_res *self)
{
    /* myresource() in final code run by the program-end process */
    fprintf(stderr, "final main%s\n",
            mpd_cap_eq(mpd_myresource(), mpd_rescap_of(self)) ? "" : " (wrong myresource)");
}
enum { B_FOO, B_NOPS };
static void B_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mpd_op_input(self, B_FOO, 1, 0);
    mpd_global(F, 30, &H_pat);
    mpd_in_done(mpd_receive_op("inithung.mpd", 11, &self->ops[B_FOO]));
}
static const mpd_respat B_pat = {"b", sizeof(mpd_res), B_NOPS, 0, B_init, main_final, F};
static void end_blocked(void *a)
{
    (void)a;
    mpd_main_resource(&B_pat, NULL);
}

static void A_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mpd_destroy(F, 31, mpd_rescap_of(self));
    fprintf(stderr, "not reached\n");
}
static const mpd_respat A_pat = {"a1", sizeof(mpd_res), 0, 0, A_init, main_final, F};
static void end_destroy_self(void *a)
{
    (void)a;
    mpd_main_resource(&A_pat, NULL);
}

static void S_init(mpd_res *self, mpd_invb *args)
{
    (void)self;
    (void)args;
    fprintf(stderr, "stopping\n");
    mpd_stop(F, 50, 0);
}
static const mpd_respat S_pat = {"s", sizeof(mpd_res), 0, 0, S_init, main_final, F};
static void end_stop0(void *a)
{
    (void)a;
    mpd_main_resource(&S_pat, NULL);
}
static void S3_init(mpd_res *self, mpd_invb *args)
{
    (void)self;
    (void)args;
    mpd_stop(F, 51, 3);
}
static const mpd_respat S3_pat = {"s", sizeof(mpd_res), 0, 0, S3_init, main_final, F};
static void end_stop3(void *a)
{
    (void)a;
    mpd_main_resource(&S3_pat, NULL);
}

static void err_destroy_twice(void *a)
{
    (void)a;
    mpd_cap c = create_D(1);
    mpd_destroy(F, 40, c);
    mpd_destroy(F, 41, c);
}
static void err_dead_op(void *a)
{
    (void)a;
    mpd_cap c = create_D(1);
    mpd_destroy(F, 42, c);
    struct inv_int x = {.h.size = sizeof x};
    mpd_call("late.mpd", 20, mpd_cap_op_of(c, D_GET), &x.h);
}
static void err_local_late(void *a)
{
    (void)a;
    mpd_res *l = mpd_ops_local(NULL, 1);
    mpd_op_input(l, 0, 1, 0);
    mpd_cap c = mpd_cap_of(l, 0);
    mpd_ops_local_end(l);
    struct inv_int x = {.h.size = sizeof x};
    mpd_send("late.mpd", 21, c, &x.h);
}
static void err_dyn_twice(void *a)
{
    (void)a;
    mpd_cap d = mpd_op_new(F, 1, NULL, 1, 0);
    mpd_op_destroy(F, 43, d);
    mpd_op_destroy(F, 44, d);
}
static void err_not_dyn(void *a)
{
    (void)a;
    mpd_cap c = create_D(1);
    mpd_op_destroy(F, 45, mpd_cap_op_of(c, D_GET));
}
static void err_too_many(void *a)
{
    (void)a;
    mpd_max_resources = 3;
    for (int i = 0; i < 4; i++)
        create_D(i);
}
static void err_sem_init(void *a)
{
    (void)a;
    mpd_res *l = mpd_ops_local(NULL, 1);
    mpd_op_sem(F, 46, l, 0, 1, -7);
}

int main(void)
{
    int bad = t_run_both("resource", scenario);
    bad += t_expect_err("program end: finals, then blocked report", end_blocked, 0,
                        "final main\nfinal H\nfinal G\nRTS warning: blocked process: b.body : file "
                        "inithung.mpd, line 11\n");
    bad += t_expect_err("destroy myresource() in initial code", end_destroy_self, 0,
                        "final main\nRTS warning: body process destroyed\n");
    bad += t_expect_err("stop(0) runs final code", end_stop0, 0, "stopping\nfinal main\n");
    bad += t_expect_err("stop(3) does not", end_stop3, 3, "");
    bad += t_expect_err("destroy twice", err_destroy_twice, 1,
                        "RTS abort: attempting to destroy resource (D) that no longer exists\n");
    bad += t_expect_err("call into a destroyed resource", err_dead_op, 1,
                        "RTS abort: file late.mpd, line 20:\n   attempting to invoke operation "
                        "that no longer exists\n");
    bad += t_expect_err("send to a dead local op", err_local_late, 1,
                        "RTS abort: file late.mpd, line 21:\n   attempting to invoke operation "
                        "that no longer exists\n");
    bad += t_expect_err("destroy a dynamic op twice", err_dyn_twice, 1,
                        "line 44:\n   op no longer exists\n");
    bad += t_expect_err("destroy a static op", err_not_dyn, 1, "line 45:\n   not a dynamic op\n");
    bad += t_expect_err("too many resources", err_too_many, 1,
                        "RTS abort: too many active resources\n");
    bad += t_expect_err("bad semaphore initialiser", err_sem_init, 1,
                        "line 46:\n   illegal semaphore initializer value: -7\n");
    return bad != 0;
}
