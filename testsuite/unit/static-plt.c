/* static-plt.c: test-symbols.sh's static program.  In a static glibc
 * executable strlen and memcpy are IFUNCs called through .plt entries
 * whose GOT slots IRELATIVE relocations fill; BFD makes no NAME@plt for
 * them (no dynamic symbols), so GDB names no function there. */
#include <string.h>

int main(int argc, char **argv)
{
	char copy[64];
	size_t n = strlen(argv[0]) % sizeof(copy);

	memcpy(copy, argv[0], n);
	return (int)n + argc + copy[0] % 2;
}
