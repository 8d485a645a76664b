/* long-loop.S: the code of mkrec-long's synthetic recording: a loop whose
 * iteration count the trace alone decides (one TNT bit each), then exit.
 * Linked static, at fixed addresses, with a build-id. */
	.text
	.globl	_start
_start:
	xor	%eax, %eax
loop:
	add	$1, %rax
	sub	$1, %rdx
	dec	%rcx
	jnz	loop
exit:
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.section .note.GNU-stack,"",@progbits
