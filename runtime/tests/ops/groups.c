/* groups.c: compaction's groups trigger (core/compact.c).  On 2 VPs with
 * compaction, processes that block on every message never end a slice;
 * the trigger looks at who talks through what and expands when it finds
 * two or more groups that talk only among themselves.  Checks: two
 * ping-pong pairs in two instances (two lock classes) make it expand; two
 * pairs in one instance (one lock class, which they would contend for on
 * two VPs) never do; every message arrives either way. */
#include "optest.h"

#define F "groups.mpd"
enum { PING1, PONG1, PING2, PONG2, DONE, A1, B1, A2, B2, NOPS };
typedef struct T {
    mpd_res h;
} T;
struct inv_x {
    mpd_invb h;
    long x;
};
#define ROUNDS 20000

long mpd__compact_expansions(long *groups); /* core/compact.c */

static mpd_res *made;

/* send ping(k); receive pong(y) -- a loop top each round */
static void run_a(mpd_res *self, int ping, int pong)
{
    long sum = 0;
    for (long k = 1; k <= ROUNDS; k++) {
        struct inv_x m = {.h.size = sizeof m, .x = k};
        mpd_send_op(F, 10, &self->ops[ping], &m.h);
        struct inv_x *r = (void *)mpd_receive_op(F, 11, &self->ops[pong]);
        sum += r->x;
        mpd_in_done(&r->h);
        mpd_maybe_yield();
    }
    CHECK_EQ(sum, (long)ROUNDS * (ROUNDS + 1)); /* b doubles each */
    mpd_op_V(F, 12, &self->ops[DONE]);
}
/* receive ping(x); send pong(2x) */
static void run_b(mpd_res *self, int ping, int pong)
{
    for (long k = 1; k <= ROUNDS; k++) {
        struct inv_x *r = (void *)mpd_receive_op(F, 20, &self->ops[ping]);
        struct inv_x m = {.h.size = sizeof m, .x = 2 * r->x};
        mpd_in_done(&r->h);
        mpd_send_op(F, 21, &self->ops[pong], &m.h);
        mpd_maybe_yield();
    }
}
static void a1(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    run_a(self, PING1, PONG1);
}
static void b1(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    run_b(self, PING1, PONG1);
}
static void a2(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    run_a(self, PING2, PONG2);
}
static void b2(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    run_b(self, PING2, PONG2);
}
static void P_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    for (int i = PING1; i <= PONG2; i++)
        mpd_op_input(self, i, 1, 0);
    mpd_op_sem(F, 1, self, DONE, 1, 0);
    mpd_op_proc(self, A1, 1, a1, "P.a1", 0);
    mpd_op_proc(self, B1, 1, b1, "P.b1", 0);
    mpd_op_proc(self, A2, 1, a2, "P.a2", 0);
    mpd_op_proc(self, B2, 1, b2, "P.b2", 0);
    made = self;
}
static const mpd_respat P_pat = {"P", sizeof(T), NOPS, 0, P_init, NULL, F};

static mpd_res *make(void)
{
    mpd_create(F, 2, &P_pat, NULL);
    return made;
}
static void start(mpd_res *r, int op)
{
    struct inv_x m = {.h.size = sizeof m};
    mpd_send_op(F, 30, &r->ops[op], &m.h);
}

/* pair 1 in one instance, pair 2 in another */
static void apart(void *arg)
{
    (void)arg;
    mpd_res *r = make(), *s = make();
    start(r, A1), start(r, B1), start(s, A2), start(s, B2);
    mpd_op_P(F, 40, &r->ops[DONE]);
    mpd_op_P(F, 41, &s->ops[DONE]);
    long g = 0;
    mpd__compact_expansions(&g);
    CHECK(g >= 1);
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}
/* both pairs in one instance: one lock class, one group */
static void together(void *arg)
{
    (void)arg;
    mpd_res *r = make();
    start(r, A1), start(r, B1), start(r, A2), start(r, B2);
    mpd_op_P(F, 50, &r->ops[DONE]);
    mpd_op_P(F, 51, &r->ops[DONE]);
    long g = -1;
    mpd__compact_expansions(&g);
    CHECK_EQ(g, 0);
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}

int main(void)
{
    /* compaction needs the time slice; a look every 256 messages */
    setenv("MPD_SLICE", "1000", 1);
    setenv("MPD_COMPACT_SAMPLE", "256", 1);
    unsetenv("MPD_COMPACT");
    int bad = 0;
    for (int i = 0; i < 2; i++) {
        int st = t_run_child(i ? together : apart, 2);
        printf("groups %s (2 VPs): %s\n", i ? "together" : "apart", st ? "FAIL" : "ok");
        bad += st != 0;
    }
    return bad != 0;
}
