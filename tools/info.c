/* info.c: placeholder until this command lands. */
#include "commands.h"
#include <stdio.h>
int hwtrec_info_main(int argc, char **argv)
{
	fprintf(stderr, "hwtrec info: not built yet\n");
	return 2;
}
