# coresight-lib.sh: shared by the CoreSight tests (sourced).
#
# The OpenCSD snapshots live in the shared test data, outside the checkout:
# $HWTR_TESTDATA (set by make check from configure's --with-testdata, by
# default ../shared/testdata beside the top of the source tree).  Without
# them a test is skipped (exit 77) and says where it looked.
set -u
HWTREC=${HWTREC:-$top_builddir/tools/hwtrec}
OPENCSD_DATA=${HWTR_TESTDATA:-}/opencsd

need_snapshots() {
	if [ -z "${HWTR_TESTDATA:-}" ] || [ ! -f "$OPENCSD_DATA/juno_r1_1/snapshot.ini" ] ||
	   [ ! -f "$OPENCSD_DATA/juno-uname-002/snapshot.ini" ]; then
		echo "SKIP: OpenCSD snapshots not found in ${OPENCSD_DATA} (set HWTR_TESTDATA, or configure --with-testdata=DIR)"
		exit 77
	fi
}

need_lister() {
	if ! command -v trc_pkt_lister >/dev/null 2>&1; then
		echo "SKIP: trc_pkt_lister not found (apt-get install libopencsd-bin)"
		exit 77
	fi
}

scratch() {
	tmp=$(mktemp -d /tmp/hwtr-coresight-XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
}

# import SNAPSHOT_DIR NAME: the recording $tmp/NAME.hwtrec, or fail.
import_snapshot() {
	if ! "$HWTREC" import --opencsd-snapshot "$1" -o "$tmp/$2.hwtrec" \
		>"$tmp/$2.out" 2>"$tmp/$2.err"; then
		echo "FAIL: hwtrec import --opencsd-snapshot $1:"
		cat "$tmp/$2.err"
		exit 1
	fi
}
