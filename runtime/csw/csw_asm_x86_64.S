/* csw_asm_x86_64.S: context switch for x86-64 SysV (callee-saved registers only).
 *
 * A saved context is { sp, pc }: resuming it is "rsp = sp; jmp *pc".  The
 * function below saves the callee-saved registers on the stack and a pc
 * that pops them; the inline switch of csw.h saves only rbp and a pc inside
 * its caller (the compiler saves whatever else is live).  Either can resume
 * the other, and a new context's pc is mpd_csw_asm_start. */
#if defined(__x86_64__)
	.text
/* void mpd_csw_asm_jump(mpd_asm_ctx *from, mpd_asm_ctx *to)
 * Pushes rbp rbx r12-r15, saves { rsp, mpd_csw_asm_resume } in *from and
 * resumes *to.  MXCSR and the x87 control word are not switched (see
 * mpd/rt.h). */
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
	leaq	mpd_csw_asm_resume(%rip), %rax
	movq	%rsp, (%rdi)
	movq	%rax, 8(%rdi)
	movq	(%rsi), %rsp
	cmpq	%rax, 8(%rsi)		/* saved by this function too: fall */
	jne	.Lcsw_other		/* through instead of an indirect jmp */
	.cfi_endproc
	.size	mpd_csw_asm_jump, .-mpd_csw_asm_jump

/* The pc saved by mpd_csw_asm_jump: pop what it pushed and return to its
 * caller.  The call and this ret pair up, so the return stack buffer stays
 * balanced (a switch ended by a jmp to a popped return address left one
 * entry behind per switch and doubled the cost of yield). */
	.globl	mpd_csw_asm_resume
	.type	mpd_csw_asm_resume, @function
mpd_csw_asm_resume:
	.cfi_startproc
	.cfi_def_cfa_offset 56
	.cfi_offset rbp, -16
	.cfi_offset rbx, -24
	.cfi_offset r12, -32
	.cfi_offset r13, -40
	.cfi_offset r14, -48
	.cfi_offset r15, -56
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
.Lcsw_other:				/* a context saved by the inline switch, or new */
	jmpq	*8(%rsi)
	.cfi_endproc
	.size	mpd_csw_asm_resume, .-mpd_csw_asm_resume

/* The trampoline of MPD_SWITCH_RETURN (core/switch.h): r11 holds the body,
 * the arguments are still in their registers.  The body returns its result
 * in rax and, in rdx, 1 if it switched to another process inline; then the
 * return to our caller is an indirect jmp, not a ret.  The subq keeps the
 * ABI's alignment. */
	.globl	mpd__switch_return
	.hidden	mpd__switch_return
	.type	mpd__switch_return, @function
	.p2align 4
mpd__switch_return:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	callq	*%r11
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	testq	%rdx, %rdx
	jnz	1f
	ret
1:
	popq	%rcx
	.cfi_adjust_cfa_offset -8
	jmpq	*%rcx
	.cfi_endproc
	.size	mpd__switch_return, .-mpd__switch_return

/* First code of a new context: mpd_asm_ctx_make left the argument and the
 * entry function at sp.  The entry never returns. */
	.globl	mpd_csw_asm_start
	.type	mpd_csw_asm_start, @function
	.p2align 4
mpd_csw_asm_start:
	.cfi_startproc
	.cfi_undefined rip
	popq	%rdi
	popq	%rax
	xorl	%ebp, %ebp
	callq	*%rax
	ud2
	.cfi_endproc
	.size	mpd_csw_asm_start, .-mpd_csw_asm_start
#endif
	.section .note.GNU-stack,"",@progbits
