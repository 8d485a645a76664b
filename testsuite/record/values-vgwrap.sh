#!/bin/sh
# values-vgwrap.sh: Valgrind for values-vs-vgdb.test (as HWTREC_VALGRIND):
# its gdbserver waits for GDB before the program's first instruction and
# single-steps precisely (--vgdb=full); the --vgdb-prefix the recorder
# chose is written to $ORACLE_PREFIX_FILE, for GDB's vgdb.
for a in "$@"; do
	case $a in
	--vgdb-prefix=*)
		echo "${a#--vgdb-prefix=}" >"$ORACLE_PREFIX_FILE.tmp" &&
			mv "$ORACLE_PREFIX_FILE.tmp" "$ORACLE_PREFIX_FILE" ;;
	esac
done
exec valgrind --vgdb=full --vgdb-error=0 "$@"
