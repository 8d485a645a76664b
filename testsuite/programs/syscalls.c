/* syscalls: system calls made through libc wrappers and directly with the
 * syscall instruction (the trace is disabled in the kernel and resumes after
 * the instruction). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long raw_getppid(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(SYS_getppid)
			 : "rcx", "r11", "memory");
	return ret;
}

int main(void)
{
	char buf[16];
	int fd = open("/dev/zero", O_RDONLY);
	ssize_t got = read(fd, buf, sizeof(buf));
	int ok = got == (ssize_t)sizeof(buf) && buf[3] == 0;

	close(fd);
	for (int i = 0; i < 5; i++)
		ok &= raw_getppid() > 0;
	ok &= write(1, "syscalls: write\n", 16) == 16;
	printf("syscalls: %s\n", ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}
