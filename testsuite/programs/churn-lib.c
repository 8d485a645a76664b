/* churn-lib: the shared object mapping-churn loads again and again (one copy
 * per round): calls CB N times through a pointer. */
unsigned long churn(void (*cb)(unsigned), unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		cb(i);
	return n;
}
