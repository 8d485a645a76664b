#!/bin/sh
# A tiny run of the benchmark for `make check`: its figures are not checked,
# its results are (instruction count and searches against the generator,
# no gaps, every seek lands on an instruction); bench-history exits 1 if not.
./bench-history --insns 300000 --seeks 50 >bench-smoke.out 2>&1
status=$?
cat bench-smoke.out
exit $status
