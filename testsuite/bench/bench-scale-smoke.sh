#!/bin/sh
# A tiny run of bench-scale.sh for `make check` (about a million
# instructions per program): its times are not checked; that libipt alone
# and the history count the same instructions, and that the replay answers
# reverse-stepi, reverse-step and reverse-finish, are.
exec "$(dirname "$0")/bench-scale.sh" "${top_builddir:?}" 1
