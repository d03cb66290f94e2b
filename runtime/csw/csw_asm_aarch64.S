/* csw_asm_aarch64.S: context switch for aarch64 AAPCS64 (x19-x30, d8-d15). */
#if defined(__aarch64__)
	.text
/* void mpd_csw_asm_jump(void **save_sp, void *to_sp)
 * Saves x19-x28, fp, lr and d8-d15 in a 160-byte frame, stores sp in
 * *save_sp, switches to to_sp, restores the same frame and returns through
 * the restored lr.  FPCR is not switched (see mpd/rt.h). */
	.globl	mpd_csw_asm_jump
	.type	mpd_csw_asm_jump, %function
	.p2align 4
mpd_csw_asm_jump:
	sub	sp, sp, #160
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8,  d9,  [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mov	x2, sp
	str	x2, [x0]
	mov	sp, x1
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8,  d9,  [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #160
	ret
	.size	mpd_csw_asm_jump, .-mpd_csw_asm_jump

/* First code of a new context: argument in x19, entry function in x20. */
	.globl	mpd_csw_asm_start
	.type	mpd_csw_asm_start, %function
	.p2align 4
mpd_csw_asm_start:
	mov	x0, x19
	blr	x20
	brk	#0
	.size	mpd_csw_asm_start, .-mpd_csw_asm_start
#endif
	.section .note.GNU-stack,"",%progbits
