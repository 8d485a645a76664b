/* images-prog: a PIE program that exits normally (status 6, no crash, no
 * core), for test-server-images.py: the server must give GDB its images
 * from the recording's mappings.  Run under `sh -c 'exec ./images-prog'`
 * it is also the program an exec starts. */
#include <stdio.h>

static int twice(int x)
{
	return 2 * x;
}

int main(int argc, char **argv)
{
	int v = argc + 19;

	v = twice(v + 1);
	printf("images-prog %d\n", v);
	return v == 42 ? 6 : 1;
}
