#include <stdbool.h>
#include <stdio.h>
struct pair { long a; double b; };
struct big { long v[5]; };
__attribute__((noinline)) struct pair mkpair(long a) { struct pair p = { a * 3, a / 2.0 }; return p; }
__attribute__((noinline)) struct big mkbig(long a) { struct big b; for (int i = 0; i < 5; i++) b.v[i] = a + i; return b; }
__attribute__((noinline)) long double ld(long a) { return (long double)a / 3; }
__attribute__((noinline)) __int128 wide(long a) { return ((__int128)a << 70) + 5; }
__attribute__((noinline)) bool odd(long a) { return a & 1; }
__attribute__((noinline)) const char *name(long a) { return a > 3 ? "big" : "small"; }
__attribute__((noinline)) float half(float x) { return x / 2; }
int main(void) {
	long s = 0;
	for (long i = 1; i < 6; i++) {
		struct pair p = mkpair(i);
		struct big b = mkbig(i);
		long double l = ld(i);
		__int128 w = wide(i);
		bool o = odd(i);
		const char *n = name(i);
		float h = half((float)i);
		s += p.a + b.v[4] + (long)l + (long)(w >> 64) + o + n[0] + (long)h;
	}
	printf("%ld\n", s);
	return 0;
}
