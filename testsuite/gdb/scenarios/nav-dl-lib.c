/* nav-dl-lib.c: the libraries of nav-dl-prog (nav-dl.scn), built twice:
 * libnavdl-linked.so, linked with the program (its calls go through the
 * PLT), and libnavdl-opened.so, which the program dlopen()s and calls
 * through pointers from dlsym().  Lines carry "L:name" markers. */
static int calls;

static int scale(int v)
{
	return v * 3; /* L:lib_scale */
}

static int descend(int depth)
{
	calls++; /* L:lib_descend */
	if (depth == 0)
		return scale(calls); /* L:lib_base */
	return descend(depth - 1) + 1; /* L:lib_rec */
}

int lib_visit(int depth)
{
	return descend(depth); /* L:lib_visit */
}

int lib_callback(int (*fn)(int), int v)
{
	int r = fn(v); /* L:lib_callback */

	return r + scale(v); /* L:lib_after */
}
