/* demangle.c: a function's name as GDB prints it in the function-call
 * history: C++ names demangled (GDB's `print demangle`, on by default,
 * prints "warm_up()" where the symbol table says "_ZL7warm_upv").
 *
 * libiberty's demangler, GDB's own, with the options GDB gives the names
 * of functions (dwarf2_physname: parameters, ANSI qualifiers, no return
 * type, which a template function's mangled name carries).  configure
 * looks for it (libiberty-dev); without it, or for a name that is not a
 * mangled one, the name is printed as it is.  Instruction listings keep
 * the linkage name, as GDB's disassembly does (`print asm-demangle` is off
 * by default).
 */
#include "demangle.h"

#include <stdlib.h>
#include <string.h>

#ifdef HWTR_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

char *demangle_function(const char *name)
{
#ifdef HWTR_HAVE_LIBIBERTY
	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_RET_DROP);
#else
	(void)name;
	return NULL;
#endif
}
