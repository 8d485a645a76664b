# hwt-checks.sh: what every recording made through the hwt source and the
# stand-in must be (sourced by record-compare.sh; testlib.sh's helpers and
# $WORK, $STATUS are there).  HWTREC_REFERENCE's recording is ref.hwtrec.

# The stand-in's log: START issued exactly once, after a SET_CONFIG, and
# never without one (the stand-in leaves PANIC and aborts if it was).
check_start_after_config() {
	log="$HWT_STANDIN_DIR/standin.log"
	[ ! -e "$HWT_STANDIN_DIR/PANIC" ] || {
		echo "the stand-in panicked: $(cat "$HWT_STANDIN_DIR/PANIC")" >&2
		return 1
	}
	order=$(sed -En 's/^\[[0-9]+\] (SET_CONFIG|START) .*/\1/p' "$log" | tr '\n' ' ')
	[ "$order" = "SET_CONFIG START " ] || {
		echo "the stand-in saw '$order', expected 'SET_CONFIG START '" >&2
		return 1
	}
}

check_hwt_recording() {
	m="$WORK/rec.hwtrec/manifest.json"
	check_start_after_config || return 1
	[ "$(jq -r .source "$m")" = freebsd-hwt ] &&
		[ "$(jq -r .pt.tsc "$m")" = false ] || {
		echo "manifest: source $(jq -r .source "$m"), pt.tsc $(jq -r .pt.tsc "$m")" >&2
		return 1
	}
	# FreeBSD's PT backend clears TSCEn: not one TSC packet.
	for s in "$WORK"/rec.hwtrec/trace/*.pt; do
		set -- $("$PTTIMES" "$s")
		[ "$4" = 0 ] || { echo "$s has $4 TSC packets" >&2; return 1; }
	done
	# Byte for byte what the stand-in's "hardware" wrote into each buffer
	# (HWT_STANDIN_DUMP): the drain neither lost, added nor reordered.
	for s in "$WORK"/rec.hwtrec/trace/*.pt; do
		tid=$(basename "$s" .pt)
		cmp -s "$s" "$HWT_STANDIN_DIR/stream.$tid" || {
			echo "$s differs from what the stand-in wrote ($HWT_STANDIN_DIR/stream.$tid)" >&2
			return 1
		}
	done
	# Nothing lost (16 MiB buffers, a reader that keeps up), every thread
	# named by its LWP id, as many threads as the Valgrind source saw.
	losses=$(jq -r 'select(.event == "loss")' "$WORK/rec.hwtrec/sideband.jsonl" | wc -l)
	[ "$losses" = 0 ] || { echo "$losses loss events" >&2; return 1; }
	jq -e '[.threads[].tid | select(. >= 2147483648)] | length == 0' "$m" >/dev/null || {
		echo "threads named by hwt index, not LWP id: $(jq -c '[.threads[].tid]' "$m")" >&2
		return 1
	}
	n=$(jq '.threads | length' "$m")
	nref=$(jq '.threads | length' "$WORK/ref.hwtrec/manifest.json")
	[ "$n" = "$nref" ] || { echo "$n threads, the Valgrind source saw $nref" >&2; return 1; }
	if [ "$STATUS" -gt 128 ]; then
		check_end_signal $((STATUS - 128)) || return 1
	fi
	echo "hwt: $n thread(s), $(cat "$WORK"/rec.hwtrec/trace/*.pt | wc -c) trace bytes, no TSC, no loss, START after SET_CONFIG"
}
