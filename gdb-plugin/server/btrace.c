/* btrace.c: btrace XML for GDB (see btrace.h).  The layout follows
 * gdbserver's linux_low_read_btrace and GDB's btrace.dtd. */
#include "btrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *btrace_xml(const uint8_t *trace, size_t size, const char *vendor,
		 unsigned family, unsigned model, unsigned stepping)
{
	static const char hex[] = "0123456789abcdef";
	char cpu[160] = "";
	size_t len, i;
	char *xml, *p;

	if (vendor && !strcmp(vendor, "intel"))
		snprintf(cpu, sizeof(cpu),
			 "<cpu vendor=\"GenuineIntel\" family=\"%u\" model=\"%u\" "
			 "stepping=\"%u\"/>\n", family, model, stepping);
	if (size > (SIZE_MAX - 512) / 2)
		return NULL;
	len = 2 * size + strlen(cpu) + 512;
	xml = malloc(len);
	if (!xml)
		return NULL;
	p = xml + sprintf(xml,
			  "<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
			  "<btrace version=\"1.0\">\n<pt>\n<pt-config>\n%s"
			  "</pt-config>\n<raw>\n", cpu);
	for (i = 0; i < size; i++) {
		*p++ = hex[trace[i] >> 4];
		*p++ = hex[trace[i] & 15];
	}
	strcpy(p, "</raw>\n</pt>\n</btrace>\n");
	return xml;
}

char *btrace_xml_empty(void)
{
	return strdup("<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
		      "<btrace version=\"1.0\">\n</btrace>\n");
}

char *btrace_conf_xml(size_t buffer_size)
{
	char *xml;

	if (asprintf(&xml, "<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
			   "<btrace-conf version=\"1.0\">\n<pt size=\"0x%zx\"/>\n"
			   "</btrace-conf>\n", buffer_size) < 0)
		return NULL;
	return xml;
}
