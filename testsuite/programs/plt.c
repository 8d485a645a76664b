/* plt: calls into libc through the PLT (lazy binding: the first call of each
 * goes through the dynamic loader's resolver), and a libc function (qsort)
 * calling back into the program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	int v[] = { 9, 4, 7, 1, 8, 2, 6, 3, 5, 0 };
	char buf[64];
	size_t n;

	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), compare_ints);
	strcpy(buf, "procedure linkage table");
	n = strlen(buf);
	memset(buf + n, '!', 3);
	buf[n + 3] = '\0';
	printf("plt: %s %d %d %zu\n", buf, v[0], v[9], strlen(buf));
	puts("plt: done");
	return 0;
}
