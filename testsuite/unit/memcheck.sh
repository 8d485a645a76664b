#!/bin/sh
# Run a unit test under Valgrind memcheck: any invalid access or leak fails
# the test (DESIGN.md section 9).  Check's fork mode is off so that leaks in
# the tested code are seen by the process valgrind watches.  The one leak
# of OpenCSD's own (opencsd.supp says which) is suppressed.
test="$1"
shift
# A tree built with --enable-sanitizers checks itself (ASan and memcheck
# cannot watch one process together).
if [ "${HWTR_SANITIZERS:-no}" = yes ]; then
	CK_FORK=no exec "$test" "$@"
fi
# check_trials (check-main.h): fewer random trials under memcheck.
HWTR_UNDER_MEMCHECK=1 CK_FORK=no exec ${LIBTOOL:-libtool} --mode=execute \
	valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect \
	--suppressions="$(dirname "$0")/opencsd.supp" \
	--error-exitcode=99 "$test" "$@"
