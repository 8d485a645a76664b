/* images-lib: a shared object whose symbol table (images_lib_twice,
 * _DYNAMIC) gives test-loaded-objects its expected addresses. */
int images_lib_twice(int x)
{
	return 2 * x;
}
