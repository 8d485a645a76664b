#!/bin/sh
# hwtrec import --opencsd-snapshot on broken copies of juno_r1_1: each is
# rejected, or imported with a warning, by a message that names the file and
# the line (or offset) at fault; never a crash, never silence.
. "$SRCDIR/coresight-lib.sh"
need_snapshots
scratch
SRC=$OPENCSD_DATA/juno_r1_1
status=0
n=0

# fresh NAME: a copy of the snapshot in $tmp/NAME (ini files copied, data
# files linked, so that a case may change any of them).
fresh() {
	d=$tmp/$1
	mkdir -p "$d"
	for f in "$SRC"/*; do
		case $f in
		*.ini) cp "$f" "$d/" ;;
		*) [ -f "$f" ] && ln -s "$f" "$d/" ;;
		esac
	done
	chmod u+w "$d"/*.ini
}

# run_import NAME: import $tmp/NAME into $tmp/NAME.hwtrec; rc in $rc,
# messages in $tmp/NAME.err.
run_import() {
	rm -rf "$tmp/$1.hwtrec"
	"$HWTREC" import --opencsd-snapshot "$tmp/$1" -o "$tmp/$1.hwtrec" \
		>"$tmp/$1.out" 2>"$tmp/$1.err"
	rc=$?
}

# expect NAME RC TEXT: the import exited RC and said TEXT (fixed string).
expect() {
	n=$((n + 1))
	if [ "$rc" != "$2" ] || ! grep -qF -- "$3" "$tmp/$1.err"; then
		echo "FAIL: $1: expected exit $2 and \"$3\"; got exit $rc:"
		sed 's/^/    /' "$tmp/$1.err"
		status=1
	else
		echo "ok: $1: $(grep -F -- "$3" "$tmp/$1.err" | head -n 1)"
	fi
}

fresh no-snapshot-ini
rm "$tmp/no-snapshot-ini/snapshot.ini"
run_import no-snapshot-ini
expect no-snapshot-ini 1 "$tmp/no-snapshot-ini/snapshot.ini: No such file or directory"

fresh missing-device
rm "$tmp/missing-device/device_7.ini"
run_import missing-device
expect missing-device 1 "device_7.ini: No such file or directory (listed at $tmp/missing-device/snapshot.ini:12)"

fresh garbage-line
lines=$(wc -l <"$tmp/garbage-line/device_6.ini")
echo "this is not ini" >>"$tmp/garbage-line/device_6.ini"
run_import garbage-line
expect garbage-line 1 "device_6.ini:$((lines + 1)): expected key=value or [section], found \"this is not ini\""

fresh key-before-section
printf 'buffers=x\n' | cat - "$SRC/trace.ini" >"$tmp/key-before-section/trace.ini"
run_import key-before-section
expect key-before-section 1 "trace.ini:1: key=value before any [section]"

fresh repeated-key
sed -i 's/^TRCIDR2(0x07A)=.*/&\nTRCIDR2(0x07A)=0x1/' "$tmp/repeated-key/device_6.ini"
run_import repeated-key
expect repeated-key 1 "device_6.ini:13: key \"TRCIDR2(0x07A)\" again in [regs] (first at line 12)"

fresh missing-register
sed -i '/^TRCIDR0/d' "$tmp/missing-register/device_8.ini"
run_import missing-register
expect missing-register 1 "device_8.ini:6: [regs] has no TRCIDR0 (needed to decode)"

fresh bad-register
sed -i 's/^TRCCONFIGR(0x004)=.*/TRCCONFIGR(0x004)=0xC1Z/' "$tmp/bad-register/device_6.ini"
run_import bad-register
expect bad-register 1 "device_6.ini:7: TRCCONFIGR(0x004)=\"0xC1Z\" is not a number of 32 bits"

fresh unknown-core
sed -i 's/^type=Cortex-A53/type=Cortex-Z99/' "$tmp/unknown-core/cpu_2.ini"
run_import unknown-core
expect unknown-core 1 "cpu_2.ini:4: core type \"Cortex-Z99\" is not one we know the architecture of"

fresh bad-version
sed -i 's/^version=1.0/version=2.0/' "$tmp/bad-version/snapshot.ini"
run_import bad-version
expect bad-version 1 "snapshot.ini:2: snapshot version \"2.0\" (this reader reads 1.0)"

fresh bad-format
sed -i '0,/^format=coresight/s//format=tpiu/' "$tmp/bad-format/trace.ini"
run_import bad-format
expect bad-format 1 "trace.ini:7: buffer format \"tpiu\" (expected coresight, dstream_coresight or source_data)"

fresh nul-byte
printf '[device]\nname=ETM_0\0\n' >"$tmp/nul-byte/device_6.ini"
run_import nul-byte
expect nul-byte 1 "device_6.ini:2: a NUL byte (offset 19): not a text file"

# Other protocols: STM is skipped with a message and the ETMs imported.
fresh stm
run_import stm
expect stm 0 "skipping trace source STM_12 (STM, $tmp/stm/device_12.ini): only ETMv4 and ETE are decoded"

# Only protocols we do not decode: said, and nothing is written.
fresh only-ptm
sed -i 's/^type=ETM4$/type=PTM/' "$tmp/only-ptm"/device_*.ini
run_import only-ptm
expect only-ptm 1 "no ETMv4 or ETE trace source: nothing to decode"
expect only-ptm 1 "skipping trace source ETM_3 (PTM, $tmp/only-ptm/device_9.ini): only ETMv4 and ETE are decoded"
n=$((n + 1))
if [ -e "$tmp/only-ptm.hwtrec/manifest.json" ]; then
	echo "FAIL: only-ptm: a recording was written"
	status=1
fi

# A trace buffer cut short (not whole frames): imported with a warning that
# gives the offset; the frames before it decode as the lister decodes them,
# and the history ends with a gap at the cut.
fresh cut-buffer
rm "$tmp/cut-buffer/cstrace.bin"
head -c 30005 "$SRC/cstrace.bin" >"$tmp/cut-buffer/cstrace.bin"
run_import cut-buffer
expect cut-buffer 0 "cstrace.bin: 30005 bytes is not a whole number of 16-byte CoreSight frames: the buffer was cut short; the last 5 bytes (from offset 30000) are not decoded"
n=$((n + 1))
if command -v trc_pkt_lister >/dev/null 2>&1; then
	if python3 "$SRCDIR/lister-compare.py" "$tmp/cut-buffer" \
		"$tmp/cut-buffer.hwtrec" "$HWTREC" >"$tmp/cut-buffer.cmp" 2>&1; then
		echo "ok: cut-buffer: $(head -n 1 "$tmp/cut-buffer.cmp")"
		n=$((n + 1))
		if "$HWTREC" dump "$tmp/cut-buffer.hwtrec" --insn --thread 16 | tail -n 1 |
		   grep -qF "trace truncated: the stream ends inside a packet at offset 30000"; then
			echo "ok: cut-buffer: the history ends with a gap at offset 30000"
		else
			echo "FAIL: cut-buffer: the history does not end with a gap at the cut"
			status=1
		fi
	else
		echo "FAIL: cut-buffer: the cut buffer does not decode as the lister decodes it:"
		sed 's/^/    /' "$tmp/cut-buffer.cmp"
		status=1
	fi
fi

# A memory image shorter than its ini says: a warning naming the ini line,
# and the code past its end is not mapped: gaps that name the address.
fresh short-image
rm "$tmp/short-image/kernel_dump.bin"
head -c 65536 "$SRC/kernel_dump.bin" >"$tmp/short-image/kernel_dump.bin"
run_import short-image
expect short-image 0 "cpu_0.ini:15: memory image $tmp/short-image/kernel_dump.bin holds 65536 bytes from offset 0x0, the ini says 0x50000: the last 262144 bytes (from 0xffffffc000091000) are not mapped"
n=$((n + 1))
if "$HWTREC" dump "$tmp/short-image.hwtrec" --insn --thread 16 >"$tmp/short-image.insn" 2>&1 &&
   grep -q "address not accessible at 0xffffffc0000a" "$tmp/short-image.insn" &&
   ! grep -q "0xffffffc0000a[0-9a-f]*:" "$tmp/short-image.insn"; then
	echo "ok: short-image: code past the image's end is a gap naming its address"
else
	echo "FAIL: short-image: code at 0xffffffc0000a.... (past the image) is listed, or no gap names it"
	status=1
fi

echo "$n checks"
exit $status
