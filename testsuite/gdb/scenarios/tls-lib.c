/* tls-lib.c: thread-local counters in shared libraries, for tls-prog
 * (values-tls.scn).  Built twice: libtls-linked.so (linked with the
 * program: its TLS block is in the static TLS area) and, with
 * -DOPENED, libtls-opened.so (dlopen()ed: its block is allocated on first
 * use).  General-dynamic TLS (-fpic): each access gets its address from
 * __tls_get_addr, then stores through it. */
#ifdef OPENED
#define NAME(x) opened_##x
#else
#define NAME(x) linked_##x
#endif

__thread long NAME(calls);
__thread char NAME(last)[8];

long NAME(bump)(long by)
{
	NAME(calls) += by;
	NAME(last)[NAME(calls) % 7] = (char)('a' + by); /* L:bump */
	return NAME(calls);
}
