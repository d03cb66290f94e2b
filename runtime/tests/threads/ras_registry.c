/* ras_registry.c: rasctl-style install/purge/purge-all semantics, limit, lookup and PC rewind. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include "mpd/ras.h"
#include "check.h"

/* A few one-instruction "sequences" in this program's text to register. */
__asm__(".text\n"
        ".globl t_code\n t_code:\n"
        ".rept 600\n nop\n .endr\n ret\n");
extern const char t_code[];

static int data_word;

static void set_pc(ucontext_t *uc, const void *pc)
{
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)pc;
#elif defined(__aarch64__)
    uc->uc_mcontext.pc = (uintptr_t)pc;
#endif
}
static const void *get_pc(ucontext_t *uc)
{
#if defined(__x86_64__)
    return (const void *)(uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (const void *)(uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return NULL;
#endif
}

int main(void)
{
    char *a = (char *)(uintptr_t)t_code;
    CHECK_EQ_L(mpd_ras_count(), 0);
    CHECK_EQ_L(mpd_ras_limit(), MPD_RAS_DEFAULT_LIMIT);

    /* EINVAL cases */
    errno = 0;
    CHECK(mpd_rasctl(a, 8, 42) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(mpd_rasctl(NULL, 8, MPD_RAS_INSTALL) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(mpd_rasctl(a, 0, MPD_RAS_INSTALL) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(mpd_rasctl((void *)~(uintptr_t)7, 64, MPD_RAS_INSTALL) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(mpd_rasctl(&data_word, 4, MPD_RAS_INSTALL) == -1 && errno == EINVAL); /* not code */

    /* install, duplicate/overlap rejected, lookup */
    CHECK_EQ_L(mpd_rasctl(a, 8, MPD_RAS_INSTALL), 0);
    errno = 0;
    CHECK(mpd_rasctl(a, 8, MPD_RAS_INSTALL) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(mpd_rasctl((char *)a + 4, 8, MPD_RAS_INSTALL) == -1 && errno == EINVAL);
    CHECK(mpd_ras_lookup((char *)a + 3) == a);
    CHECK(mpd_ras_lookup((char *)a + 8) == NULL);
    CHECK(mpd_ras_lookup((void *)((uintptr_t)a - 1)) == NULL);

    /* PC rewind on a crafted context */
    ucontext_t uc;
    memset(&uc, 0, sizeof uc);
    set_pc(&uc, (char *)a + 5);
    CHECK_EQ_L(mpd_ras_fixup(&uc), 1);
    CHECK(get_pc(&uc) == a);
    CHECK_EQ_L(mpd_ras_restarts(a), 1);
    CHECK_EQ_L(mpd_ras_fixup(&uc), 1); /* at the start: inside, no restart counted */
    CHECK_EQ_L(mpd_ras_restarts(a), 1);
    set_pc(&uc, (char *)a + 100);
    CHECK_EQ_L(mpd_ras_fixup(&uc), 0);
    CHECK(get_pc(&uc) == (char *)a + 100);

    /* purge: ESRCH for wrong length / unknown, then success stops rewinds */
    errno = 0;
    CHECK(mpd_rasctl(a, 9, MPD_RAS_PURGE) == -1 && errno == ESRCH);
    errno = 0;
    CHECK(mpd_rasctl((char *)a + 16, 8, MPD_RAS_PURGE) == -1 && errno == ESRCH);
    CHECK_EQ_L(mpd_rasctl(a, 8, MPD_RAS_PURGE), 0);
    errno = 0;
    CHECK(mpd_rasctl(a, 8, MPD_RAS_PURGE) == -1 && errno == ESRCH);
    set_pc(&uc, (char *)a + 5);
    CHECK_EQ_L(mpd_ras_fixup(&uc), 0);
    CHECK(get_pc(&uc) == (char *)a + 5);
    CHECK_EQ_L(mpd_ras_count(), 0);

    /* per-process limit */
    for (int i = 0; i < MPD_RAS_DEFAULT_LIMIT; i++)
        CHECK_EQ_L(mpd_rasctl((char *)a + 8 * i, 8, MPD_RAS_INSTALL), 0);
    errno = 0;
    CHECK(mpd_rasctl((char *)a + 8 * MPD_RAS_DEFAULT_LIMIT, 8, MPD_RAS_INSTALL) == -1 &&
          errno == EINVAL);
    errno = 0;
    CHECK(mpd_ras_set_limit(MPD_RAS_DEFAULT_LIMIT - 1) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(mpd_ras_set_limit(MPD_RAS_HARD_LIMIT + 1) == -1 && errno == EINVAL);
    CHECK_EQ_L(mpd_ras_set_limit(64), 0);
    CHECK_EQ_L(mpd_rasctl((char *)a + 8 * MPD_RAS_DEFAULT_LIMIT, 8, MPD_RAS_INSTALL), 0);
    CHECK_EQ_L(mpd_ras_count(), MPD_RAS_DEFAULT_LIMIT + 1);
    /* a freed slot is reused */
    CHECK_EQ_L(mpd_rasctl((char *)a + 8 * 3, 8, MPD_RAS_PURGE), 0);
    CHECK(mpd_ras_lookup((char *)a + 8 * 3 + 1) == NULL);
    CHECK(mpd_ras_lookup((char *)a + 8 * 4 + 1) == (char *)a + 8 * 4);
    CHECK_EQ_L(mpd_rasctl((char *)a + 8 * 3, 8, MPD_RAS_INSTALL), 0);
    CHECK(mpd_ras_lookup((char *)a + 8 * 3 + 1) == (char *)a + 8 * 3);

    /* purge all (addr/len ignored) */
    CHECK_EQ_L(mpd_rasctl(NULL, 0, MPD_RAS_PURGE_ALL), 0);
    CHECK_EQ_L(mpd_ras_count(), 0);
    CHECK(mpd_ras_lookup((char *)a + 1) == NULL);

    /* built-in sequences */
    CHECK_EQ_L(mpd_ras_init(), 0);
    CHECK_EQ_L(mpd_ras_init(), 0); /* idempotent */
#if MPD_RAS_NATIVE
    CHECK_EQ_L(mpd_ras_count(), 2);
    CHECK(mpd_ras_lookup(mpd_ras_tas_begin) == mpd_ras_tas_begin);
    CHECK(mpd_ras_lookup((void *)((uintptr_t)mpd_ras_fetch_add_end - 1)) ==
          mpd_ras_fetch_add_begin);
#endif
    volatile int w = 0;
    CHECK_EQ_L(mpd_ras_tas(&w), 0);
    CHECK_EQ_L(mpd_ras_tas(&w), 1);
    volatile long l = 40;
    CHECK_EQ_L(mpd_ras_fetch_add(&l, 2), 40);
    CHECK_EQ_L(l, 42);
    mpd_ras_mutex_t m = MPD_RAS_MUTEX_INIT;
    CHECK_EQ_L(mpd_ras_mutex_trylock(&m), 0);
    CHECK_EQ_L(mpd_ras_mutex_trylock(&m), EBUSY);
    mpd_ras_mutex_unlock(&m);
    mpd_ras_mutex_lock(&m);
    mpd_ras_mutex_unlock(&m);
    CHECK_EQ_L(mpd_ras_builtin_purge(), 0);
    CHECK(mpd_ras_lookup(mpd_ras_tas_begin) == NULL || !MPD_RAS_NATIVE);
    CHECK_DONE();
}
