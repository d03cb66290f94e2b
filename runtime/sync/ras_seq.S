/* ras_seq.S: the built-in restartable atomic sequences (test-and-set, fetch-and-add).
 *
 * A sequence is atomic only against threads of the same OS thread, so each
 * function first tests mpd_ras__interlocked (ras.c): when more than one OS
 * thread may run the sequences (several VPs, or a caller that did not declare
 * one) it takes the interlocked path after the range instead, as NetBSD's
 * libpthread does on a multiprocessor.
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
        cmpl    $0, mpd_ras__interlocked(%rip)
        jne     1f
mpd_ras_tas_begin:
        movl    (%rdi), %eax
        movl    $1, (%rdi)
mpd_ras_tas_end:
        ret
1:      movl    $1, %eax            /* several VPs: the interlocked exchange */
        xchgl   %eax, (%rdi)
        ret
        .size   mpd_ras_tas, .-mpd_ras_tas

        .p2align 4
        .globl  mpd_ras_fetch_add
        .type   mpd_ras_fetch_add, @function
        .globl  mpd_ras_fetch_add_begin
        .globl  mpd_ras_fetch_add_end
/* long mpd_ras_fetch_add(volatile long *p, long v): old = *p; *p = old + v; return old */
mpd_ras_fetch_add:
        cmpl    $0, mpd_ras__interlocked(%rip)
        jne     1f
mpd_ras_fetch_add_begin:
        movq    (%rdi), %rax
        leaq    (%rax,%rsi), %rdx
        movq    %rdx, (%rdi)
mpd_ras_fetch_add_end:
        ret
1:      lock xaddq %rsi, (%rdi)     /* several VPs: the interlocked add */
        movq    %rsi, %rax
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
        adrp    x3, mpd_ras__interlocked
        ldr     w3, [x3, :lo12:mpd_ras__interlocked]
        cbnz    w3, 2f
mpd_ras_tas_begin:
        ldr     w1, [x0]
        mov     w2, #1
        str     w2, [x0]
mpd_ras_tas_end:
        mov     w0, w1
        ret
2:      mov     w2, #1              /* several VPs: an exclusive-access exchange */
3:      ldaxr   w1, [x0]
        stxr    w4, w2, [x0]
        cbnz    w4, 3b
        mov     w0, w1
        ret
        .size   mpd_ras_tas, .-mpd_ras_tas

        .p2align 4
        .globl  mpd_ras_fetch_add
        .type   mpd_ras_fetch_add, %function
        .globl  mpd_ras_fetch_add_begin
        .globl  mpd_ras_fetch_add_end
mpd_ras_fetch_add:
        adrp    x4, mpd_ras__interlocked
        ldr     w4, [x4, :lo12:mpd_ras__interlocked]
        cbnz    w4, 2f
mpd_ras_fetch_add_begin:
        ldr     x2, [x0]
        add     x3, x2, x1
        str     x3, [x0]
mpd_ras_fetch_add_end:
        mov     x0, x2
        ret
2:      ldaxr   x2, [x0]            /* several VPs: an exclusive-access add */
        add     x3, x2, x1
        stlxr   w4, x3, [x0]
        cbnz    w4, 2b
        mov     x0, x2
        ret
        .size   mpd_ras_fetch_add, .-mpd_ras_fetch_add
        .section .note.GNU-stack,"",%progbits
#endif
/* Other CPUs: ras.c supplies interlocked fallbacks (MPD_RAS_NATIVE is 0). */
