/* record.c: placeholder until this command lands. */
#include "commands.h"
#include <stdio.h>
int hwtrec_record_main(int argc, char **argv)
{
	fprintf(stderr, "hwtrec record: not built yet\n");
	return 2;
}
