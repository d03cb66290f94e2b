/* csw_fcontext.c: backend on Boost.Context's fcontext (needs -lboost_context). */
#include <stdlib.h>
#include "csw/csw.h"

/* Boost.Context's C-linkage entry points (declared in a C++-only header). */
typedef void *fcontext_t;
typedef struct {
    fcontext_t fctx;
    void *data;
} transfer_t;
extern transfer_t jump_fcontext(fcontext_t const to, void *vp);
extern fcontext_t make_fcontext(void *sp, size_t size, void (*fn)(transfer_t));

/* A jump carries a pointer to this pair: the resumed side stores the
 * jumper's saved context in from, and a new context finds its entry in to. */
struct fc_pass {
    mpd_fc_ctx *from, *to;
};

static void fc_start(transfer_t t)
{
    struct fc_pass *ps = t.data;
    mpd_fc_ctx *self = ps->to;
    ps->from->fctx = t.fctx;
    self->fn(self->arg);
    abort(); /* entries never return */
}

void mpd_fc_ctx_make(mpd_fc_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg)
{
    c->fn = fn;
    c->arg = arg;
    c->fctx = make_fcontext((char *)lo + size, size, fc_start);
}

void mpd_fc_ctx_switch(mpd_fc_ctx *from, mpd_fc_ctx *to)
{
    struct fc_pass ps = {from, to};
    transfer_t t = jump_fcontext(to->fctx, &ps);
    struct fc_pass *back = t.data;
    back->from->fctx = t.fctx;
}
