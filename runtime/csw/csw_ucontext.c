/* csw_ucontext.c: the portable (and slow) backend on makecontext/swapcontext. */
#include <stdint.h>
#include <stdlib.h>
#include "csw/csw.h"

/* makecontext passes int arguments only, so the context pointer travels
 * split in two halves. */
static void uc_start(unsigned hi, unsigned lo)
{
    mpd_uc_ctx *c = (mpd_uc_ctx *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo);
    c->fn(c->arg);
    abort(); /* entries never return */
}

void mpd_uc_ctx_make(mpd_uc_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg)
{
    uintptr_t p = (uintptr_t)c;
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = lo;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = NULL;
    c->fn = fn;
    c->arg = arg;
    makecontext(&c->uc, (void (*)(void))uc_start, 2, (unsigned)(p >> 16 >> 16), (unsigned)p);
}

void mpd_uc_ctx_switch(mpd_uc_ctx *from, mpd_uc_ctx *to)
{
    swapcontext(&from->uc, &to->uc);
}
