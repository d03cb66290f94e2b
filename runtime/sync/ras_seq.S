/* ras_seq.S: the built-in restartable atomic sequences (test-and-set, fetch-and-add).
 *
 * Each sequence lies between a _begin and an _end label that are exported so
 * the registry knows its exact range.  Inside a range there is one entry (the
 * first instruction), no call, no syscall, and the only shared-memory write is
 * the last instruction, so rewinding the PC to _begin is always safe. */
#if defined(__x86_64__)
        .text
        .p2align 4
        .globl  mpd_ras_tas
        .type   mpd_ras_tas, @function
        .globl  mpd_ras_tas_begin
        .globl  mpd_ras_tas_end
/* int mpd_ras_tas(volatile int *p): old = *p; *p = 1; return old */
mpd_ras_tas:
mpd_ras_tas_begin:
        movl    (%rdi), %eax
        movl    $1, (%rdi)
mpd_ras_tas_end:
        ret
        .size   mpd_ras_tas, .-mpd_ras_tas

        .p2align 4
        .globl  mpd_ras_fetch_add
        .type   mpd_ras_fetch_add, @function
        .globl  mpd_ras_fetch_add_begin
        .globl  mpd_ras_fetch_add_end
/* long mpd_ras_fetch_add(volatile long *p, long v): old = *p; *p = old + v; return old */
mpd_ras_fetch_add:
mpd_ras_fetch_add_begin:
        movq    (%rdi), %rax
        leaq    (%rax,%rsi), %rdx
        movq    %rdx, (%rdi)
mpd_ras_fetch_add_end:
        ret
        .size   mpd_ras_fetch_add, .-mpd_ras_fetch_add
        .section .note.GNU-stack,"",@progbits

#elif defined(__aarch64__)
        .text
        .p2align 4
        .globl  mpd_ras_tas
        .type   mpd_ras_tas, %function
        .globl  mpd_ras_tas_begin
        .globl  mpd_ras_tas_end
mpd_ras_tas:
mpd_ras_tas_begin:
        ldr     w1, [x0]
        mov     w2, #1
        str     w2, [x0]
mpd_ras_tas_end:
        mov     w0, w1
        ret
        .size   mpd_ras_tas, .-mpd_ras_tas

        .p2align 4
        .globl  mpd_ras_fetch_add
        .type   mpd_ras_fetch_add, %function
        .globl  mpd_ras_fetch_add_begin
        .globl  mpd_ras_fetch_add_end
mpd_ras_fetch_add:
mpd_ras_fetch_add_begin:
        ldr     x2, [x0]
        add     x3, x2, x1
        str     x3, [x0]
mpd_ras_fetch_add_end:
        mov     x0, x2
        ret
        .size   mpd_ras_fetch_add, .-mpd_ras_fetch_add
        .section .note.GNU-stack,"",%progbits
#endif
/* Other CPUs: ras.c supplies interlocked fallbacks (MPD_RAS_NATIVE is 0). */
