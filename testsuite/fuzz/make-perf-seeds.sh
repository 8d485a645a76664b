#!/bin/sh
# make-perf-seeds.sh HWTREC SRCDIR: writes SRCDIR/seeds-perfdata/ (`make
# seeds`): perf.data files that hwtrec export writes for a recording of a
# tiny program (Valgrind source) in each layout, and damaged copies of one
# (perf-data-edit.py) for the refusal paths.
set -eu
hwtrec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
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
ls -l "$out"
