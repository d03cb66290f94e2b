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
#define BACKEND_TEST(NAME, CTX, MAKE, SWITCH)                                                      \
    static CTX NAME##_main, NAME##_c[NCTX];                                                        \
    static long NAME##_visits[NCTX];                                                               \
    static volatile double NAME##_dsink;                                                           \
    static long NAME##_rec(long n)                                                                 \
    {                                                                                              \
        volatile long x = n;                                                                       \
        return n ? NAME##_rec(n - 1) + x : 0;                                                      \
    }                                                                                              \
    static void NAME##_entry(void *arg)                                                            \
    {                                                                                              \
        int i = (int)(intptr_t)arg;                                                                \
        /* values live across switches in callee-saved registers when optimised */                 \
        long r1 = i * 3 + 1, r2 = i * 5 + 2, r3 = i * 7 + 3, r4 = i * 11 + 4, r5 = i * 13 + 5;     \
        double d1 = i * 0.5, d2 = i * 0.25 + 1, d3 = i * 1.5 + 2, d4 = i * 2.5 + 3;                \
        for (int lap = 0; lap < LAPS; lap++) {                                                     \
            NAME##_visits[i]++;                                                                    \
            if (lap == 3 && NAME##_rec(2000) != 2000L * 2001 / 2)                                  \
                t_failures++;                                                                      \
            SWITCH(&NAME##_c[i], i + 1 < NCTX ? &NAME##_c[i + 1] : &NAME##_main);                  \
            r1 += 1;                                                                               \
            r2 += 2;                                                                               \
            r3 += 3;                                                                               \
            r4 += 4;                                                                               \
            r5 += 5;                                                                               \
            d1 += 1;                                                                               \
            d2 += 2;                                                                               \
            d3 += 3;                                                                               \
            d4 += 4;                                                                               \
        }                                                                                          \
        if (r1 != i * 3 + 1 + LAPS || r2 != i * 5 + 2 + 2 * LAPS || r3 != i * 7 + 3 + 3 * LAPS ||  \
            r4 != i * 11 + 4 + 4 * LAPS || r5 != i * 13 + 5 + 5 * LAPS)                            \
            t_failures++, fprintf(stderr, #NAME ": integer registers clobbered\n");                \
        if (d1 != i * 0.5 + LAPS || d2 != i * 0.25 + 1 + 2 * LAPS ||                               \
            d3 != i * 1.5 + 2 + 3 * LAPS || d4 != i * 2.5 + 3 + 4 * LAPS)                          \
            t_failures++, fprintf(stderr, #NAME ": FP registers clobbered\n");                     \
        NAME##_dsink = d1 + d2 + d3 + d4;                                                          \
        SWITCH(&NAME##_c[i], &NAME##_main);                                                        \
        abort();                                                                                   \
    }                                                                                              \
    static void NAME##_run(void)                                                                   \
    {                                                                                              \
        char *mem = mmap(NULL, (size_t)NCTX * STK, PROT_READ | PROT_WRITE,                         \
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);                      \
        for (int i = 0; i < NCTX; i++)                                                             \
            MAKE(&NAME##_c[i], mem + (size_t)i * STK, STK, NAME##_entry, (void *)(intptr_t)i);     \
        long m1 = 17;                                                                              \
        double md = 2.5;                                                                           \
        for (int lap = 0; lap < LAPS; lap++) {                                                     \
            SWITCH(&NAME##_main, &NAME##_c[0]);                                                    \
            m1 += 2;                                                                               \
            md *= 1.0;                                                                             \
        }                                                                                          \
        for (int i = 0; i < NCTX; i++) /* final switch of each context */                          \
            SWITCH(&NAME##_main, &NAME##_c[i]);                                                    \
        for (int i = 0; i < NCTX; i++)                                                             \
            CHECK_EQ(NAME##_visits[i], LAPS);                                                      \
        CHECK_EQ(m1, 17 + 2 * LAPS);                                                               \
        CHECK(md == 2.5);                                                                          \
        munmap(mem, (size_t)NCTX *STK);                                                            \
        printf("  %s: %d contexts x %d laps ok\n", #NAME, NCTX, LAPS);                             \
    }

#ifdef MPD_CSW_HAVE_ASM
BACKEND_TEST(asm, mpd_asm_ctx, mpd_asm_ctx_make, mpd_asm_ctx_switch)
#endif
BACKEND_TEST(ucontext, mpd_uc_ctx, mpd_uc_ctx_make, mpd_uc_ctx_switch)
#ifdef MPD_HAVE_FCONTEXT
BACKEND_TEST(fcontext, mpd_fc_ctx, mpd_fc_ctx_make, mpd_fc_ctx_switch)
#endif

/* The callee-saved registers by name, for the backend the runtime uses: the
 * caller pins known values in them (local register variables), a peer
 * context fills them with garbage and switches back, and the values must
 * be intact.  The C test above relies on the compiler's register choice. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
#define REGS_TEST 1
static mpd_ctx rg_main, rg_peer;
static void rg_peer_entry(void *a)
{
    (void)a;
    for (;;) {
#if defined(__x86_64__)
        __asm__ volatile("mov $-1, %%rbx\n\tmov $-2, %%r12\n\tmov $-3, %%r13\n\t"
                         "mov $-4, %%r14\n\tmov $-5, %%r15" ::
                             : "rbx", "r12", "r13", "r14", "r15", "memory");
#else
        __asm__ volatile("mov x19, #1\n\tmov x20, #2\n\tmov x21, #3\n\tmov x22, #4\n\t"
                         "mov x23, #5\n\tmov x24, #6\n\tmov x25, #7\n\tmov x26, #8\n\t"
                         "mov x27, #9\n\tmov x28, #10\n\t"
                         "fmov d8, xzr\n\tfmov d9, xzr\n\tfmov d10, xzr\n\tfmov d11, xzr\n\t"
                         "fmov d12, xzr\n\tfmov d13, xzr\n\tfmov d14, xzr\n\tfmov d15, xzr" ::
                             : "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28",
                               "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15", "memory");
#endif
        mpd_ctx_switch(&rg_peer, &rg_main);
    }
}

static __attribute__((noinline)) void regs_run(void)
{
    char *stk = mmap(NULL, STK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mpd_ctx_make(&rg_peer, stk, STK, rg_peer_entry, NULL);
    int bad = 0;
    for (int lap = 0; lap < 3; lap++) {
#if defined(__x86_64__)
        register long b __asm__("rbx") = 0x1111 + lap, c __asm__("r12") = 0x2222,
                        d __asm__("r13") = 0x3333, e __asm__("r14") = 0x4444,
                        g __asm__("r15") = 0x5555;
        __asm__ volatile("" : "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(g));
        mpd_ctx_switch(&rg_main, &rg_peer);
        __asm__ volatile("" : "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(g));
        bad += b != 0x1111 + lap || c != 0x2222 || d != 0x3333 || e != 0x4444 || g != 0x5555;
#else
        register long x19 __asm__("x19") = 19 + lap, x20 __asm__("x20") = 20,
                          x21 __asm__("x21") = 21, x22 __asm__("x22") = 22, x23 __asm__("x23") = 23,
                          x24 __asm__("x24") = 24, x25 __asm__("x25") = 25, x26 __asm__("x26") = 26,
                          x27 __asm__("x27") = 27, x28 __asm__("x28") = 28;
        register double d8 __asm__("d8") = 8.5, d9 __asm__("d9") = 9.5, d10 __asm__("d10") = 10.5,
                           d11 __asm__("d11") = 11.5, d12 __asm__("d12") = 12.5,
                           d13 __asm__("d13") = 13.5, d14 __asm__("d14") = 14.5,
                           d15 __asm__("d15") = 15.5 + lap;
        __asm__ volatile(""
                         : "+r"(x19), "+r"(x20), "+r"(x21), "+r"(x22), "+r"(x23), "+r"(x24),
                           "+r"(x25), "+r"(x26), "+r"(x27), "+r"(x28));
        __asm__ volatile(""
                         : "+w"(d8), "+w"(d9), "+w"(d10), "+w"(d11), "+w"(d12), "+w"(d13),
                           "+w"(d14), "+w"(d15));
        mpd_ctx_switch(&rg_main, &rg_peer);
        __asm__ volatile(""
                         : "+r"(x19), "+r"(x20), "+r"(x21), "+r"(x22), "+r"(x23), "+r"(x24),
                           "+r"(x25), "+r"(x26), "+r"(x27), "+r"(x28));
        __asm__ volatile(""
                         : "+w"(d8), "+w"(d9), "+w"(d10), "+w"(d11), "+w"(d12), "+w"(d13),
                           "+w"(d14), "+w"(d15));
        bad += x19 != 19 + lap || x20 != 20 || x21 != 21 || x22 != 22 || x23 != 23 || x24 != 24 ||
               x25 != 25 || x26 != 26 || x27 != 27 || x28 != 28;
        bad += d8 != 8.5 || d9 != 9.5 || d10 != 10.5 || d11 != 11.5 || d12 != 12.5 || d13 != 13.5 ||
               d14 != 14.5 || d15 != 15.5 + lap;
#endif
    }
    CHECK_EQ(bad, 0);
    munmap(stk, STK);
    printf("  %s: callee-saved registers by name kept\n", MPD_CSW_NAME);
}
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
#ifdef REGS_TEST
    regs_run();
#endif
    printf("  runtime uses: %s\n", MPD_CSW_NAME);
    return t_done("csw_test");
}
