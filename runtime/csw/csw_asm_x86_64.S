/* csw_asm_x86_64.S: context switch for x86-64 SysV (callee-saved registers only). */
#if defined(__x86_64__)
	.text
/* void mpd_csw_asm_jump(void **save_sp, void *to_sp)
 * Pushes rbp rbx r12-r15, stores rsp in *save_sp, loads to_sp and pops the
 * same registers from there; ret resumes the other context.  MXCSR and the
 * x87 control word are not switched (see mpd/rt.h). */
	.globl	mpd_csw_asm_jump
	.type	mpd_csw_asm_jump, @function
	.p2align 4
mpd_csw_asm_jump:
	.cfi_startproc
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.cfi_endproc
	.size	mpd_csw_asm_jump, .-mpd_csw_asm_jump

/* First code of a new context: mpd_asm_ctx_make put the argument in r12 and
 * the entry function in r13.  The entry never returns. */
	.globl	mpd_csw_asm_start
	.type	mpd_csw_asm_start, @function
	.p2align 4
mpd_csw_asm_start:
	.cfi_startproc
	.cfi_undefined rip
	movq	%r12, %rdi
	callq	*%r13
	ud2
	.cfi_endproc
	.size	mpd_csw_asm_start, .-mpd_csw_asm_start
#endif
	.section .note.GNU-stack,"",@progbits
