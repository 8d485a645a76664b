/* btrace.h: GDB's btrace XML documents (qXfer:btrace:read and
 * qXfer:btrace-conf:read), as gdbserver writes them for Intel PT, so that
 * GDB's own `record btrace pt` decodes a recording's trace. */
#ifndef HWTREC_BTRACE_H
#define HWTREC_BTRACE_H

#include <stddef.h>
#include <stdint.h>

/* <btrace version="1.0"><pt><pt-config><cpu .../></pt-config><raw>HEX</raw>
 * </pt></btrace>; vendor "intel" is GDB's "GenuineIntel", any other vendor
 * leaves the cpu out (GDB then applies no errata).  malloc'd, or NULL. */
char *btrace_xml(const uint8_t *trace, size_t size, const char *vendor,
		 unsigned family, unsigned model, unsigned stepping);

/* The empty document GDB reads when no new trace arrived. */
char *btrace_xml_empty(void);

/* <btrace-conf version="1.0"><pt size="0x.."/></btrace-conf> */
char *btrace_conf_xml(size_t buffer_size);

#endif /* HWTREC_BTRACE_H */
