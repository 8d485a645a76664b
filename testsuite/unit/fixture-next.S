/* fixture-next.S: the program fixture-code.S execs in the symbol tests:
 * other functions at fixture-code's addresses.  Each program's functions
 * start inside the other's (first_fn at fixture-code's _start, second_fn
 * at its i2, _start at 0x401008), so only the program running at the time
 * can name the code at an address. */
	.text
	.globl first_fn
	.type first_fn, @function
first_fn:
n1:	nop
n2:	ret
	.size first_fn, .-first_fn

	.globl second_fn
	.type second_fn, @function
second_fn:
n3:	call	first_fn
n4:	ret
	.size second_fn, .-second_fn

	.globl _start
	.type _start, @function
_start:
n5:	call	second_fn
n6:	mov	$60, %eax
n7:	syscall
	.size _start, .-_start
	.section .note.GNU-stack,"",@progbits
