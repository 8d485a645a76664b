#!/bin/sh
# make-perf-seeds.sh HWTREC SRCDIR MAKE_ETM_SNAPSHOT: writes
# SRCDIR/seeds-perfdata/ (`make seeds`): perf.data files that hwtrec export
# writes for a recording of a tiny program (Valgrind source) in each layout,
# and damaged copies of one (perf-data-edit.py) for the refusal paths; and
# the same for CoreSight (cs-etm-*): the export of the unit tests' ETM
# snapshot (one trace unit, raw trace, two context IDs) and copies with
# AUXTRACE_INFO words and AUX records that lie.
set -eu
hwtrec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
make_etm_snapshot=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
out=$(cd "$2" && pwd)/seeds-perfdata
edit=$(cd "$2/../perf" && pwd)/perf-data-edit.py
work=$(mktemp -d "${TMPDIR:-/tmp}/perf-seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > tiny.S <<'S'
	.globl _start
_start:	mov $5, %ecx
1:	dec %ecx
	call leaf
	jnz 1b
	mov $60, %eax
	xor %edi, %edi
	syscall
leaf:	ret
S
cc -nostdlib -static -no-pie -Wl,--build-id -o tiny tiny.S
"$hwtrec" record -q --source=valgrind -o tiny.hwtrec -- ./tiny
mkdir -p "$out"
"$hwtrec" export --perf tiny.hwtrec -o "$out/per-thread" 2>/dev/null
"$hwtrec" export --perf tiny.hwtrec -o "$out/no-tsc" --no-tsc 2>/dev/null
"$hwtrec" export --perf tiny.hwtrec -o "$out/per-cpu" --layout=per-cpu 2>/dev/null
"$hwtrec" export --perf tiny.hwtrec -o "$out/snapshot" --snapshot 2>/dev/null

cp "$out/per-thread" "$out/truncated"
python3 "$edit" "$out/truncated" truncate $(($(wc -c < "$out/per-thread") / 2))
for case in "no-auxtrace-info set-type 70 120" "auxtrace-size-lies auxtrace-size 99999" \
	"unknown-type set-type 68 120" "cs-etm auxtrace-info-type 3" \
	"aux-truncated aux-truncated 64"; do
	# shellcheck disable=SC2086
	set -- $case
	name=$1; shift
	cp "$out/per-thread" "$out/$name"
	python3 "$edit" "$out/$name" "$@"
done

"$make_etm_snapshot" snap
"$hwtrec" import --opencsd-snapshot snap -o etm.hwtrec 2>/dev/null
"$hwtrec" export --perf etm.hwtrec -o "$out/cs-etm-contexts"
# AUXTRACE_INFO words: 0 version, 1 PMU type/CPUs, 3 magic, 5 parameter
# count, 7 TRCTRACEIDR.
for case in "cs-etm-version-3 auxtrace-info-word 0 3" \
	"cs-etm-no-cpu auxtrace-info-word 1 0x900000000" \
	"cs-etm-bad-magic auxtrace-info-word 3 0x6060606060606060" \
	"cs-etm-etmv3 auxtrace-info-word 3 0x3030303030303030" \
	"cs-etm-count-past-end auxtrace-info-word 5 1000" \
	"cs-etm-few-params auxtrace-info-word 5 3" \
	"cs-etm-no-trace-id auxtrace-info-word 7 0" \
	"cs-etm-v2-unused-id auxtrace-info-word 7 0x80000010" \
	"cs-etm-aux-truncated aux-truncated 40 0x101" \
	"cs-etm-aux-formatted aux-truncated 73 0" \
	"cs-etm-auxtrace-size-lies auxtrace-size 99999"; do
	# shellcheck disable=SC2086
	set -- $case
	name=$1; shift
	cp "$out/cs-etm-contexts" "$out/$name"
	python3 "$edit" "$out/$name" "$@"
done
ls -l "$out"
