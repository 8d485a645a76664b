/* bench-code.S: the code the benchmark's synthetic trace runs through.
 *
 * The shape of a small real program: a main loop that makes an indirect call
 * through a table (f0..f3) and a direct call to work; f0 is a hashing loop,
 * f1 calls a leaf twice, f2 branches on data, f3 jumps through a switch
 * table; work loops and calls leaf every eighth pass.  init runs once at the
 * start from a page of its own, as start-up code does.  Loop counts and
 * branch outcomes come from the trace (bench-trace.c), not from registers.
 * Labels mark every block start the generator needs. */
	.text
	.globl _start
	.type _start, @function
_start:
	call	init
after_init:
	xor	%r12d, %r12d
main_loop:
	mov	%r12, %rax
	and	$3, %eax
	lea	table(%rip), %rdx
	call	*(%rdx,%rax,8)
after_ind:
	call	work
after_work:
	inc	%r12
	cmp	$1000000000, %r12
	jne	main_loop
exit:
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.size _start, .-_start

	.globl f0
	.type f0, @function
f0:
	mov	$8, %ecx
f0_loop:
	add	%ecx, %eax
	rol	$3, %eax
	xor	$0x55, %eax
	dec	%ecx
	jnz	f0_loop
f0_ret:
	ret
	.size f0, .-f0

	.globl f1
	.type f1, @function
f1:
	push	%rbx
	call	leaf
f1_a:
	call	leaf
f1_b:
	pop	%rbx
	ret
	.size f1, .-f1

	.globl f2
	.type f2, @function
f2:
	test	$1, %r12b
	jz	f2_skip
f2_add:
	add	$1, %eax
f2_skip:
	call	leaf
f2_after:
	ret
	.size f2, .-f2

	.globl f3
	.type f3, @function
f3:
	lea	jt(%rip), %rdx
	mov	%r12, %rax
	shr	$2, %rax
	and	$1, %eax
	jmp	*(%rdx,%rax,8)
c0:
	add	$7, %eax
	ret
c1:
	sub	$7, %eax
	imul	%eax, %eax
	ret
	.size f3, .-f3

	.globl work
	.type work, @function
work:
	mov	$32, %ecx
work_loop:
	mov	%ecx, %eax
	and	$7, %eax
	jnz	work_nocall
work_call:
	push	%rcx
	call	leaf
work_ret:
	pop	%rcx
work_nocall:
	add	%eax, %esi
	imul	$3, %esi, %esi
	dec	%ecx
	jnz	work_loop
work_end:
	ret
	.size work, .-work

	.globl leaf
	.type leaf, @function
leaf:
	mov	%rdi, %rax
	shl	$1, %rax
	add	$3, %rax
	ret
	.size leaf, .-leaf

	/* Start-up code on a page of its own: a search for it can skip every
	 * chunk of the hot loop by its page filter. */
	.balign 4096
	.globl init
	.type init, @function
init:
	xor	%eax, %eax
	xor	%esi, %esi
	mov	$1, %edi
	ret
	.size init, .-init

	.section .rodata
	.balign 8
table:	.quad	f0, f1, f2, f3
jt:	.quad	c0, c1
	.section .note.GNU-stack,"",@progbits
