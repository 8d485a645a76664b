/* nav-dl-prog.c: where navigation commands go across shared libraries
 * (nav-dl.scn): calls through the PLT into a library linked with the
 * program, calls through dlsym() pointers into a dlopen()ed copy of it,
 * and a callback from the library back into the program; then a crash.
 * Lines carry "L:name" markers. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lib_visit(int depth);
int lib_callback(int (*fn)(int), int v);

static volatile int total;

static int twice(int v)
{
	return v * 2; /* L:twice */
}

static void crash(int *where)
{
	*where = total; /* L:crash */
}

int main(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	void *lib;
	int (*visit)(int);
	int (*callback)(int (*)(int), int);

	if (n <= 0)
		return 2;
	path[n] = 0;
	/* Beside the program, as the linked copy is found ($ORIGIN). */
	strcpy(strrchr(path, '/') + 1, "libnavdl-opened.so");
	total += lib_visit(2); /* L:main_linked */
	total += lib_callback(twice, 4); /* L:main_linked_cb */
	lib = dlopen(path, RTLD_NOW); /* L:main_dlopen */
	if (!lib)
		return 3;
	visit = (int (*)(int))dlsym(lib, "lib_visit");
	callback = (int (*)(int (*)(int), int))dlsym(lib, "lib_callback");
	total += visit(3); /* L:main_opened */
	total += callback(twice, 5); /* L:main_opened_cb */
	total += lib_visit(0); /* L:main_linked_again */
	crash(NULL); /* L:main_crash */
	return total;
}
