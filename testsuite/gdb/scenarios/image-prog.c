/* image-prog.c: a value scenario's program (values-image*.scn): an image
 * filter of the usual shape.  A 64x48 grey image in pages of its own
 * (mmap, given back with munmap, as image and video code keeps its frame
 * buffers) is filled with a gradient and a pattern, blurred with a 3-tap
 * filter into a second image (calloc), its histogram kept in a global;
 * then the source is unmapped and the result scanned for its brightest
 * row through a table of row pointers whose last entry was never set: the
 * scan reads through NULL (SIGSEGV) two calls below main.  At positions
 * before the munmap, the source's pixels are what the program stored
 * there; after it, they are no longer mapped.  Static, not PIE, like
 * values-prog.
 */
#include <stdlib.h>
#include <sys/mman.h>

#define W 64
#define H 48
#define FRAME_ADDR ((void *) 0x51000000)

struct image {
	int width, height;
	unsigned char *pixels;
};

static unsigned g_histogram[16];
static unsigned char *g_rows[H + 1];
static struct image g_source;
static long g_checksum;

static unsigned char *frame_alloc(size_t size)
{
	/* At a fixed place, as a device's frame buffer would be (and so at
	 * the same place natively and under Valgrind). */
	void *p = mmap(FRAME_ADDR, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void frame_free(unsigned char *p, size_t size)
{
	munmap(p, size); /* L:munmap */
}

static void fill(struct image *im)
{
	int x, y;

	for (y = 0; y < im->height; y++)
		for (x = 0; x < im->width; x++)
			im->pixels[y * im->width + x] =
				(unsigned char) ((x + y) / 3 + ((x ^ y) & 15)); /* L:fill */
}

static void blur(const struct image *src, struct image *dst)
{
	const unsigned char *in;
	int x, y;

	for (y = 0; y < src->height; y++) {
		in = src->pixels + y * src->width;
		for (x = 1; x < src->width - 1; x++) {
			unsigned sum = in[x - 1] + 2 * in[x] + in[x + 1];

			dst->pixels[y * dst->width + x] = (unsigned char) (sum / 4); /* L:blur */
			g_histogram[(sum / 4) >> 4]++;
		}
	}
}

static long row_sum(const unsigned char *row, int width)
{
	long sum = 0;
	int x;

	for (x = 0; x < width; x++)
		sum += row[x]; /* L:crash */
	return sum;
}

static int brightest_row(int rows, int width)
{
	long best = -1, sum;
	int y, at = 0;

	for (y = 0; y < rows; y++) {
		sum = row_sum(g_rows[y], width); /* L:row */
		if (sum > best) {
			best = sum;
			at = y;
		}
	}
	return at;
}

int main(void)
{
	struct image result = { W, H, NULL };
	int y, at;

	g_source.width = W;
	g_source.height = H;
	g_source.pixels = frame_alloc(W * H);
	result.pixels = calloc(W * H, 1);
	fill(&g_source);
	blur(&g_source, &result); /* L:blur_call */
	g_checksum = g_source.pixels[W * 10 + 10] + g_source.pixels[W * H - 1];
	frame_free(g_source.pixels, W * H); /* L:free */
	for (y = 0; y < H; y++)
		g_rows[y] = result.pixels + y * W;
	at = brightest_row(H + 1, W); /* L:scan */
	return at;
}
