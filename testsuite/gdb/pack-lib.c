/* pack-lib: the shared library of pack-prog (test-pack.py), built with its
 * debug info split off into a .build-id tree. */
int pack_scale(int x)
{
	int y = x * 3;

	return y + 1;
}
