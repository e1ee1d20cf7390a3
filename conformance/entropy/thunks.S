/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The thunks that kbuild's -mindirect-branch=thunk-extern and
 * -mfunction-return=thunk-extern make the core call, for the user-space
 * collectors (harness/judges/entropy_collect.py).  The kernel defines them
 * in arch/x86/lib/retpoline.S and patches them per CPU at boot; here they
 * are the plain forms, a jump through the register and a return, as on a
 * CPU that needs neither mitigation.  The book lists this as a difference
 * between the kernel object and the user-space core.
 */
	.text
.macro THUNK reg
	.globl	__x86_indirect_thunk_\reg
	.type	__x86_indirect_thunk_\reg, @function
__x86_indirect_thunk_\reg:
	jmp	*%\reg
	.size	__x86_indirect_thunk_\reg, . - __x86_indirect_thunk_\reg
.endm
	THUNK	rax
	THUNK	rbx
	THUNK	rcx
	THUNK	rdx
	THUNK	rsi
	THUNK	rdi
	THUNK	rbp
	THUNK	r8
	THUNK	r9
	THUNK	r10
	THUNK	r11
	THUNK	r12
	THUNK	r13
	THUNK	r14
	THUNK	r15

	.globl	__x86_return_thunk
	.type	__x86_return_thunk, @function
__x86_return_thunk:
	ret
	int3
	.size	__x86_return_thunk, . - __x86_return_thunk

	.section .note.GNU-stack, "", @progbits
