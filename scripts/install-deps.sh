#!/bin/sh
# Install every Debian 12 package hwtrecord needs to build, test and demo
# (gzip, xz-utils, python3, sqlite3: the programs of testsuite/real;
# libc6-dbg names libc's functions there; debhelper and lintian: the Debian
# packages that scripts/deb-check.sh builds and checks).
# Runs as root (or through sudo); safe to run again.
set -eu
PACKAGES="
  build-essential autoconf automake libtool pkg-config
  libipt-dev libelf-dev libdw-dev libjansson-dev libcapstone-dev check zlib1g-dev liblz4-dev libisal-dev libiberty-dev
  valgrind gdb gdbserver gdb-multiarch python3
  jq binutils
  clang libclang-rt-14-dev
  libopencsd-dev libopencsd-bin
  linux-perf
  gzip xz-utils python3 sqlite3 libc6-dbg
  debhelper lintian
"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
missing=
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "install-deps: installing:$missing"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
