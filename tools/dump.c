/* dump.c: placeholder until this command lands. */
#include "commands.h"
#include <stdio.h>
int hwtrec_dump_main(int argc, char **argv)
{
	fprintf(stderr, "hwtrec dump: not built yet\n");
	return 2;
}
