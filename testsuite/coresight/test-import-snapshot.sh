#!/bin/sh
# Needs no test data: hwtrec import --opencsd-snapshot takes what OpenCSD's
# trc_pkt_lister takes (snapshots written by ../unit/make-etm-snapshot, then
# edited), and each history is what the lister decodes (lister-compare.py):
# - a DSTREAM capture (an 8-byte footer every 512 bytes): recognised, or
#   given --dstream-format, against trc_pkt_lister -dstream_format;
# - a [source_buffers] source that no device is (skipped, as OpenCSD does);
# - two sessions (buffers) whose sources share a trace ID and a core (a
#   cpu_0 key twice in [core_trace_sources]): a thread each, the second
#   against trc_pkt_lister -src_name;
# - a raw (source_data) buffer whose trace unit has trace ID 0;
# - an ETE source: refused, naming the OpenCSD version it needs, when this
#   OpenCSD (the lister's) is older than 1.7.1;
# and a refused import leaves no NAME.hwtrec (nor a temporary) behind.
. "$SRCDIR/coresight-lib.sh"
need_lister
scratch
MAKE_SNAPSHOT=$UNIT_BUILDDIR/make-etm-snapshot
[ -x "$MAKE_SNAPSHOT" ] || {
	echo "FAIL: $MAKE_SNAPSHOT is not built (make -C testsuite/unit check)"
	exit 1
}
status=0

# try NAME [OPTIONS]: import $tmp/NAME into $tmp/NAME.hwtrec; rc in $rc.
try() {
	name=$1
	shift
	rm -rf "$tmp/$name.hwtrec"
	"$HWTREC" import --opencsd-snapshot "$tmp/$name" "$@" \
		-o "$tmp/$name.hwtrec" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
}

# said NAME TEXT: the import said TEXT (fixed string).
said() {
	if ! grep -qF -- "$2" "$tmp/$1.err"; then
		echo "FAIL: $1: expected \"$2\"; it said:"
		sed 's/^/    /' "$tmp/$1.err"
		status=1
	fi
}

# agrees NAME [THREAD_BASE] (LISTER_ARGS in the environment).
agrees() {
	if [ "$rc" != 0 ]; then
		echo "FAIL: $1: import failed:"
		sed 's/^/    /' "$tmp/$1.err"
		status=1
		return
	fi
	printf '%s: ' "$1"
	python3 "$SRCDIR/lister-compare.py" "$tmp/$1" "$tmp/$1.hwtrec" "$HWTREC" \
		${2:-} || status=1
}

"$MAKE_SNAPSHOT" "$tmp/dstream" dstream || exit 1
try dstream
said dstream "a DSTREAM capture"
LISTER_ARGS=-dstream_format agrees dstream
cp -r "$tmp/dstream" "$tmp/dstream-flag"
try dstream-flag --dstream-format
LISTER_ARGS=-dstream_format agrees dstream-flag

"$MAKE_SNAPSHOT" "$tmp/no-device" periodic-async || exit 1
sed -i 's/^ETM_0=ETB_0$/ETM_0=ETB_0\nETM_9=ETB_0/' "$tmp/no-device/trace.ini"
try no-device
said no-device "skipping trace source ETM_9 ($tmp/no-device/trace.ini:11): no device of the snapshot is named so"
agrees no-device

# Two sessions: ETB_0 holds the periodic path, ETB_1 the same trace unit's
# trace from its second A-sync on (offset 79: 0x1008, 0x100c, 0x1004).
d=$tmp/sessions
"$MAKE_SNAPSHOT" "$d" periodic-async || exit 1
sed 's/^name=ETM_0$/name=ETM_1/' "$d/device_1.ini" >"$d/device_2.ini"
printf 'device2=device_2.ini\n' >"$d/more"
sed -i '/^device1=device_1.ini$/r '"$d/more" "$d/snapshot.ini"
tail -c +80 "$d/trace.bin" >"$d/trace2.bin"
cat >"$d/trace.ini" <<'INI'
[trace_buffers]
buffers=buffer0,buffer1

[buffer0]
name=ETB_0
file=trace.bin
format=source_data

[buffer1]
name=ETB_1
file=trace2.bin
format=source_data

[source_buffers]
ETM_0=ETB_0
ETM_1=ETB_1

[core_trace_sources]
cpu_0=ETM_0
cpu_0=ETM_1
INI
try sessions
said sessions "numbered (session + 1) << 8 | trace ID"
agrees sessions
LISTER_ARGS="-src_name ETB_1" agrees sessions 0x200

"$MAKE_SNAPSHOT" "$tmp/id-zero" periodic-async || exit 1
sed -i 's/^TRCTRACEIDR(0x010)=0x00000010$/TRCTRACEIDR(0x010)=0x00000000/' \
	"$tmp/id-zero/device_1.ini"
grep -q '^TRCTRACEIDR(0x010)=0x00000000$' "$tmp/id-zero/device_1.ini" || {
	echo "FAIL: id-zero: the edit of TRCTRACEIDR did not take"
	status=1
}
try id-zero
agrees id-zero 0x100

"$MAKE_SNAPSHOT" "$tmp/ete" periodic-async || exit 1
sed -i 's/^type=ETM4$/type=ETE/' "$tmp/ete/device_1.ini"
try ete
version=$(trc_pkt_lister -help 2>&1 | sed -n 's/.*Library Version : *//p')
case $version in
1.[0-6].*|1.7.0)
	[ "$rc" = 1 ] || { echo "FAIL: ete: imported with OpenCSD $version"; status=1; }
	said ete "decoding ETE needs OpenCSD 1.7.1 or later (its C API gives ETE packets to a callback), this is OpenCSD $version"
	said ete "nothing to decode"
	[ ! -e "$tmp/ete.hwtrec" ] || { echo "FAIL: ete: a refused import left ete.hwtrec"; status=1; } ;;
*)
	agrees ete ;;
esac

"$MAKE_SNAPSHOT" "$tmp/no-buffer" periodic-async || exit 1
rm "$tmp/no-buffer/trace.bin"
try no-buffer
[ "$rc" = 1 ] || { echo "FAIL: no-buffer: imported without its trace"; status=1; }
said no-buffer "$tmp/no-buffer/trace.bin: No such file or directory"
left=$(ls -d "$tmp"/no-buffer.hwtrec* 2>/dev/null)
[ -z "$left" ] || { echo "FAIL: no-buffer: a refused import left $left"; status=1; }

[ $status = 0 ] && echo "PASS: every case"
exit $status
