/* notype-start.S: a program whose entry point is a symbol of no type, as
 * hand-written start-up code often has (.globl without .type): _start is
 * STT_NOTYPE, work an STT_FUNC (test-symbols.sh). */
	.text
	.globl _start
_start:
	call	work
	call	work
	mov	$60, %eax
	xor	%edi, %edi
	syscall

	.globl work
	.type work, @function
work:
	nop
	ret
	.size work, .-work
	.section .note.GNU-stack,"",@progbits
