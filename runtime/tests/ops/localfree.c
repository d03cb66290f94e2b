/* localfree.c: local op blocks freed at their end while other VPs look them up through the object table (a look in flight must not see freed memory). */
#include "optest.h"

#define F "localfree.mpd"
#define NBLOCKS 3000
enum { PROBER, OWNER, NOPS };
typedef struct S {
    mpd_res h;
} S;
struct inv_none {
    mpd_invb h;
};
static mpd_res *sres;

static _Atomic uint64_t published; /* the id of the owner's current block */
static atomic_int stop;
static atomic_long seen_live, probes;

/* What a lookup does before it would switch: resolve the id, then read the
 * op and its queue (inv_resolve, then a send's delivery). */
static void prober(mpd_res *self, mpd_invb *ib)
{
    (void)self;
    (void)ib;
    while (!atomic_load(&stop)) {
        uint64_t id = atomic_load_explicit(&published, memory_order_relaxed);
        mpd_res *r = id ? mpd__obj_lookup(id) : NULL;
        if (r) {
            mpd_op *op = &r->ops[0];
            volatile uint8_t k = __atomic_load_n(&op->kind, __ATOMIC_RELAXED);
            volatile void *q = op->q;
            (void)k;
            (void)q;
            atomic_fetch_add_explicit(&seen_live, 1, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&probes, 1, memory_order_relaxed);
        mpd_yield(); /* a switch: nothing looked up is kept past it */
    }
}

static void owner(mpd_res *self, mpd_invb *ib)
{
    (void)ib;
    for (int i = 0; i < NBLOCKS; i++) {
        mpd_res *b = mpd_ops_local(self, 1);
        mpd_op_input(b, 0, 1, 0);
        atomic_store_explicit(&published, b->id, memory_order_relaxed);
        if (i % 3 == 0)
            mpd_yield();
        mpd_ops_local_end(b);
    }
    atomic_store(&stop, 1);
}

static void S_init(mpd_res *self, mpd_invb *args)
{
    (void)args;
    mpd_op_proc(self, PROBER, 1, prober, "S.prober", MPD_OP_SENDONLY);
    mpd_op_proc(self, OWNER, 1, owner, "S.owner", MPD_OP_SENDONLY);
    sres = self;
}
static const mpd_respat S_pat = {"S", sizeof(S), NOPS, 0, S_init, NULL, F};

static void scenario(void *arg)
{
    (void)arg;
    mpd_create(F, 1, &S_pat, NULL);
    int n = mpd_nvp() > 1 ? mpd_nvp() : 2;
    for (int i = 0; i < n; i++) {
        struct inv_none b = {.h.size = sizeof b};
        mpd_send_op(F, 2, &sres->ops[PROBER], &b.h);
    }
    struct inv_none b = {.h.size = sizeof b};
    mpd_send_op(F, 3, &sres->ops[OWNER], &b.h);
    while (!atomic_load(&stop))
        mpd_yield();
    mpd_nap(20); /* the probers see stop and end */
    CHECK(atomic_load(&probes) > 0);
    CHECK(atomic_load(&seen_live) > 0);
    mpd_rt_set_exit_status(t_fail ? 1 : 0);
}

int main(void)
{
    int bad = 0;
    for (int nvp = 1; nvp <= 4; nvp *= 2) {
        int st = t_run_child(scenario, nvp);
        printf("localfree (%d VP): %s\n", nvp, st ? "FAIL" : "ok");
        bad += st != 0;
    }
    return bad != 0;
}
