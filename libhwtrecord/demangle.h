/* demangle.h: function names as GDB prints them (demangle.c). */
#ifndef HWTR_DEMANGLE_H
#define HWTR_DEMANGLE_H

/* NAME demangled (malloc'd: free it), or NULL when it is not a mangled
 * C++ name or no demangler was built in. */
char *demangle_function(const char *name);

#endif
