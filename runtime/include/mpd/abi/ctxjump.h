/* mpd/abi/ctxjump.h: the inline x86-64 context switch, shared by the runtime's
 * own switches (csw/csw.h) and the inline semaphore handoff of generated
 * code (mpd/abi/handoff.h).  A context is {sp, pc}.  Internal. */
#ifndef MPD_CTXJUMP_H
#define MPD_CTXJUMP_H
#if defined(__x86_64__)
/* Vector and mask registers: no callee-saved ones in the SysV ABI, so both
 * switches below declare them all clobbered. */
#ifdef __AVX512F__
#define MPD__CTX_VEC_CLOBBERS                                                                      \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",       \
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",  \
        "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30",  \
        "xmm31", "k1", "k2", "k3", "k4", "k5", "k6", "k7"
#else
#define MPD__CTX_VEC_CLOBBERS                                                                      \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",       \
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#endif

/* The common middle of both switches: store sp and the resume address
 * (label 1) in *rdi, load the other context from *rsi and jump to it; the
 * resumed side lands on label 1. */
#define MPD__CTX_SAVE_AND_JUMP                                                                     \
    "leaq 1f(%%rip), %%rax\n\t"                                                                    \
    "movq %%rsp, (%%rdi)\n\t"                                                                      \
    "movq %%rax, 8(%%rdi)\n\t"                                                                     \
    "movq (%%rsi), %%rsp\n\t"                                                                      \
    "jmpq *8(%%rsi)\n"                                                                             \
    "1:\n\t"

/* Switch from context `from` to context `to`, each {sp, pc}: save rbp and
 * the address of label 1 in *from and jump to to->pc; the resumed side
 * lands on its own label.  Every other register is declared clobbered, so
 * the compiler saves only what is live across the switch.  It steps over
 * the caller's red zone before pushing.  With no call there is no return
 * to mispredict, and the indirect jmp is predicted from its own address and
 * the branch history.  Contexts saved by mpd_csw_asm_jump resume through it. */
__attribute__((always_inline)) static inline void mpd__ctx_jump_inline(void *from, void *to)
{
    __asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"
                     "pushq %%rbp\n\t" MPD__CTX_SAVE_AND_JUMP "popq %%rbp\n\t"
                     "leaq 128(%%rsp), %%rsp"
                     : "+D"(from), "+S"(to)
                     :
                     : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
                       "r15", MPD__CTX_VEC_CLOBBERS, "memory", "cc");
}

/* The same switch for code whose fast path must not pay for the slow one
 * (the inline semaphore handoff sits in the loops of generated code): it
 * saves and restores the callee-saved registers itself and clobbers only
 * what a call does, so values the surrounding loop keeps in callee-saved
 * registers stay there on the paths that do not switch. */
__attribute__((always_inline)) static inline void mpd__ctx_jump_saving(void *from, void *to)
{
    __asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"
                     "pushq %%rbp\n\t"
                     "pushq %%rbx\n\t"
                     "pushq %%r12\n\t"
                     "pushq %%r13\n\t"
                     "pushq %%r14\n\t"
                     "pushq %%r15\n\t" MPD__CTX_SAVE_AND_JUMP "popq %%r15\n\t"
                     "popq %%r14\n\t"
                     "popq %%r13\n\t"
                     "popq %%r12\n\t"
                     "popq %%rbx\n\t"
                     "popq %%rbp\n\t"
                     "leaq 128(%%rsp), %%rsp"
                     : "+D"(from), "+S"(to)
                     :
                     : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", MPD__CTX_VEC_CLOBBERS,
                       "memory", "cc");
}
#endif
#endif
