/* fixture-exec.S: another program at the same address as fixture-code.S,
 * for the image over time: what runs after an exec. */
	.text
	.globl _start
	.type _start, @function
_start:
e1:	nop
e2:	nop
e3:	mov	$60, %eax
e4:	syscall
	.size _start, .-_start
	.section .note.GNU-stack,"",@progbits
