/* exec: the program runs once, then execs itself with an argument and runs
 * a second, different path in the new image (same executable file). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int work(int n)
{
	int s = 1;

	for (int i = 1; i < n; i++)
		s = s * 3 % 1009;
	return s;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "second")) {
		printf("exec: second image %d\n", work(30));
		return 0;
	}
	printf("exec: first image %d\n", work(10));
	fflush(stdout);
	/* argv[0], not /proc/self/exe: under Valgrind that names the tool. */
	execl(argv[0], argv[0], "second", (char *)NULL);
	perror("exec: execl");
	return 1;
}
