#!/bin/sh
# The make check smoke run of bench-hwt-drain: a small trace through an
# 8-page buffer read every page and every 4 pages; it fails only if the
# drained stream is not the trace (a lost or changed byte).
bench="$top_builddir/testsuite/bench/bench-hwt-drain"
"$bench" --insns 300000 --buffer 32768 --every 1 || exit 1
"$bench" --insns 300000 --buffer 32768 --every 4 || exit 1
