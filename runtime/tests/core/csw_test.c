/* csw_test.c: the context-switch backends on their own, in the spirit of
 * MPD's cstest: many contexts in a ring, deep recursion on a context stack,
 * callee-saved integer and FP registers preserved across switches. */
#include <stdint.h>
#include <sys/mman.h>
#include "harness.h"
#include "csw/csw.h"

#define NCTX 200
#define STK (1024 * 1024)
#define LAPS 100

/* One generic driver, instantiated for each backend below. */
#define BACKEND_TEST(NAME, CTX, MAKE, SWITCH)                                             \
    static CTX NAME##_main, NAME##_c[NCTX];                                                \
    static long NAME##_visits[NCTX];                                                       \
    static volatile double NAME##_dsink;                                                   \
    static long NAME##_rec(long n) { volatile long x = n; return n ? NAME##_rec(n - 1) + x : 0; } \
    static void NAME##_entry(void *arg)                                                    \
    {                                                                                      \
        int i = (int)(intptr_t)arg;                                                        \
        /* values live across switches in callee-saved registers when optimised */        \
        long r1 = i * 3 + 1, r2 = i * 5 + 2, r3 = i * 7 + 3, r4 = i * 11 + 4, r5 = i * 13 + 5; \
        double d1 = i * 0.5, d2 = i * 0.25 + 1, d3 = i * 1.5 + 2, d4 = i * 2.5 + 3;          \
        for (int lap = 0; lap < LAPS; lap++) {                                             \
            NAME##_visits[i]++;                                                            \
            if (lap == 3 && NAME##_rec(2000) != 2000L * 2001 / 2)                          \
                t_failures++;                                                              \
            SWITCH(&NAME##_c[i], i + 1 < NCTX ? &NAME##_c[i + 1] : &NAME##_main);         \
            r1 += 1; r2 += 2; r3 += 3; r4 += 4; r5 += 5;                                   \
            d1 += 1; d2 += 2; d3 += 3; d4 += 4;                                            \
        }                                                                                  \
        if (r1 != i * 3 + 1 + LAPS || r2 != i * 5 + 2 + 2 * LAPS || r3 != i * 7 + 3 + 3 * LAPS || \
            r4 != i * 11 + 4 + 4 * LAPS || r5 != i * 13 + 5 + 5 * LAPS)                    \
            t_failures++, fprintf(stderr, #NAME ": integer registers clobbered\n");       \
        if (d1 != i * 0.5 + LAPS || d2 != i * 0.25 + 1 + 2 * LAPS || d3 != i * 1.5 + 2 + 3 * LAPS || \
            d4 != i * 2.5 + 3 + 4 * LAPS)                                                  \
            t_failures++, fprintf(stderr, #NAME ": FP registers clobbered\n");            \
        NAME##_dsink = d1 + d2 + d3 + d4;                                                  \
        SWITCH(&NAME##_c[i], &NAME##_main);                                                \
        abort();                                                                           \
    }                                                                                      \
    static void NAME##_run(void)                                                           \
    {                                                                                      \
        char *mem = mmap(NULL, (size_t)NCTX * STK, PROT_READ | PROT_WRITE,                \
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);                              \
        for (int i = 0; i < NCTX; i++)                                                     \
            MAKE(&NAME##_c[i], mem + (size_t)i * STK, STK, NAME##_entry, (void *)(intptr_t)i); \
        long m1 = 17; double md = 2.5;                                                     \
        for (int lap = 0; lap < LAPS; lap++) {                                             \
            SWITCH(&NAME##_main, &NAME##_c[0]);                                            \
            m1 += 2; md *= 1.0;                                                            \
        }                                                                                  \
        for (int i = 0; i < NCTX; i++)       /* final switch of each context */           \
            SWITCH(&NAME##_main, &NAME##_c[i]);                                            \
        for (int i = 0; i < NCTX; i++)                                                     \
            CHECK_EQ(NAME##_visits[i], LAPS);                                              \
        CHECK_EQ(m1, 17 + 2 * LAPS);                                                       \
        CHECK(md == 2.5);                                                                  \
        munmap(mem, (size_t)NCTX * STK);                                                   \
        printf("  %s: %d contexts x %d laps ok\n", #NAME, NCTX, LAPS);                      \
    }

#ifdef MPD_CSW_HAVE_ASM
BACKEND_TEST(asm, mpd_asm_ctx, mpd_asm_ctx_make, mpd_asm_ctx_switch)
#endif
BACKEND_TEST(ucontext, mpd_uc_ctx, mpd_uc_ctx_make, mpd_uc_ctx_switch)
#ifdef MPD_HAVE_FCONTEXT
BACKEND_TEST(fcontext, mpd_fc_ctx, mpd_fc_ctx_make, mpd_fc_ctx_switch)
#endif

int main(void)
{
#ifdef MPD_CSW_HAVE_ASM
    asm_run();
#endif
    ucontext_run();
#ifdef MPD_HAVE_FCONTEXT
    fcontext_run();
#endif
    printf("  runtime uses: %s\n", MPD_CSW_NAME);
    return t_done("csw_test");
}
