#!/bin/sh
# A small run of bench-replay.sh for `make check` (300 iterations, about
# 840,000 instructions): its times are not checked; that hwtrec replay and
# GDB's btrace decoder, running the same commands on the same trace, stop at
# the same places and count the same instructions, functions and listed
# call-history lines is.
WORK_ITERATIONS=300 exec "$(dirname "$0")/bench-replay.sh" "${top_builddir:?}"
