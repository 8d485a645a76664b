/* An audio mixer, built with gcc -O3 -fomit-frame-pointer (mixer*.scn):
 * no frame pointer anywhere (CFI-only unwinding), loops gcc vectorises
 * (packed SSE over float and int16 arrays, held in xmm registers), an int
 * reduction, a saturating conversion, a histogram, a struct of arrays
 * passed by pointer and a small struct returned in registers.  The level
 * meter's peak count (where its bin was meant) indexes the table of channel
 * pointers far past its end: the crash, a load through the float samples
 * that lie there read as a pointer. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 64
#define CHANNELS 3

struct channel {
	const char *name;
	float gain;
	float pan;
	float samples[N];
};

struct bus {
	float left[N];
	float right[N];
	int16_t pcm[2 * N];
	int hist[8];
};

struct level {
	int peak;
	int at;
};

struct channel g_ch[CHANNELS];
struct channel *g_route[CHANNELS];
struct bus g_bus;
long g_energy;
int g_clipped;
volatile float g_master = 1.5f;

__attribute__((noinline)) void synth(struct channel *c, int seed)
{
	uint32_t x = (uint32_t)seed * 2654435761u;

	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		c->samples[i] = (float)((int)(x >> 16) % 2001 - 1000) / 1000.0f;
	}
}

__attribute__((noinline)) void mix(struct bus *b, struct channel *const *ch,
				   int n, float master)
{
	memset(b->left, 0, sizeof(b->left));
	memset(b->right, 0, sizeof(b->right));
	for (int c = 0; c < n; c++) {
		float gl = ch[c]->gain * (1.0f - ch[c]->pan) * master;
		float gr = ch[c]->gain * ch[c]->pan * master;
		const float *s = ch[c]->samples;

		for (int i = 0; i < N; i++) {
			b->left[i] += s[i] * gl; /* L:mix_inner */
			b->right[i] += s[i] * gr;
		}
	}
}

static inline int16_t sat16(float v)
{
	int x = (int)(v * 32767.0f);

	if (x > 32767)
		return 32767;
	if (x < -32768)
		return -32768;
	return (int16_t)x;
}

__attribute__((noinline)) int convert(struct bus *b)
{
	int clipped = 0;

	for (int i = 0; i < N; i++) {
		float l = b->left[i], r = b->right[i];

		clipped += (l > 1.0f || l < -1.0f) + (r > 1.0f || r < -1.0f);
		b->pcm[2 * i] = sat16(l);
		b->pcm[2 * i + 1] = sat16(r);
	}
	return clipped; /* L:convert_ret */
}

__attribute__((noinline)) long energy(const int16_t *pcm, int n)
{
	long e = 0;

	for (int i = 0; i < n; i++)
		e += (long)pcm[i] * pcm[i] >> 8;
	return e;
}

__attribute__((noinline)) void histogram(struct bus *b)
{
	memset(b->hist, 0, sizeof(b->hist));
	for (int i = 0; i < 2 * N; i++) {
		int v = b->pcm[i] < 0 ? -b->pcm[i] : b->pcm[i];

		b->hist[v >> 12]++;
	}
}

__attribute__((noinline)) struct level meter(const int *hist, int n)
{
	struct level lv = { 0, -1 };

	for (int i = 0; i < n; i++)
		if (hist[i] > lv.peak) {
			lv.peak = hist[i];
			lv.at = i;
		}
	return lv;
}

__attribute__((noinline)) float solo_gain(int which)
{
	struct channel *c = g_route[which];

	return c->gain * g_master; /* L:crash */
}

int main(void)
{
	static const char *const names[CHANNELS] = { "kick", "bass", "pad" };
	struct level lv;
	float solo;

	for (int c = 0; c < CHANNELS; c++) {
		g_ch[c].name = names[c];
		g_ch[c].gain = 0.5f + 0.25f * (float)c;
		g_ch[c].pan = 0.2f + 0.3f * (float)c;
		synth(&g_ch[c], c + 1);
		g_route[c] = &g_ch[c];
	}
	mix(&g_bus, g_route, CHANNELS, g_master); /* L:main_mix */
	g_clipped = convert(&g_bus);
	g_energy = energy(g_bus.pcm, 2 * N);
	histogram(&g_bus);
	lv = meter(g_bus.hist, 8); /* L:main_meter */
	fprintf(stderr, "clipped %d energy %ld peak %d at %d\n", g_clipped,
		g_energy, lv.peak, lv.at);
	solo = solo_gain(lv.peak);
	return (int)solo;
}
