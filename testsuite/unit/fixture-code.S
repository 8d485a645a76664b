/* fixture-code.S: real code for the unit tests.  Every instruction has a
 * label (i1, i2, ...) so the tests know the exact address of each one from
 * the assembler's symbol table, independently of our decoder.  The traced
 * path is described in fixture.c. */
	.text
	.globl _start
	.type _start, @function
_start:
i1:	xor	%ecx, %ecx
loop:
i2:	call	leaf
i5:	inc	%ecx
i6:	cmp	$3, %ecx
i7:	jne	loop
i20:	call	outer
i26:	lea	done(%rip), %rax
i27:	jmp	*%rax
done:
i28:	mov	$60, %eax
i29:	syscall
	.size _start, .-_start

	.globl leaf
	.type leaf, @function
leaf:
i3:	nop
i4:	ret
	.size leaf, .-leaf

	.globl outer
	.type outer, @function
outer:
i21:	call	leaf
i24:	jmp	tail
	.size outer, .-outer

	.globl tail
	.type tail, @function
tail:
i25:	ret
	.size tail, .-tail

/* A second path: recursion whose inner call ends in a tail jump, so that
 * the return from the tail-called function goes to the outer activation. */
	.globl entry2
	.type entry2, @function
entry2:
r1:	xor	%edx, %edx
r2:	call	twice
r3:	mov	$60, %eax
r4:	syscall
	.size entry2, .-entry2

	.globl twice
	.type twice, @function
twice:
t1:	test	%edx, %edx
t2:	jnz	t6
t3:	inc	%edx
t4:	call	twice
t5:	ret
t6:	jmp	leaf
	.size twice, .-twice
	.section .note.GNU-stack,"",@progbits
