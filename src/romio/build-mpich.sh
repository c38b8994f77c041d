#!/bin/bash
# build-mpich.sh - build Debian's MPICH 4.0.2 with the PVFS ADIO driver in
# its ROMIO, into PREFIX, linked against the libpvfs.so found in LIBDIR.
#
#   src/romio/build-mpich.sh [-w WORKDIR] PREFIX LIBDIR
#
# Steps, each skipped when its stamp in WORKDIR (default PREFIX.work) says it
# is done: fetch Debian's source package (adding a deb-src entry that mirrors
# debian.sources when apt has none), unpack the orig tarball, apply
# romio-pvfs.patch and regenerate ROMIO, configure.  The driver files are
# copied in on every run (only when they changed, so make rebuilds just
# them), then make and make install run when anything is newer than the last
# install.  Needs root only for the apt steps.  doc/romio.md has the why.
set -euo pipefail

usage() { echo "usage: $0 [-w WORKDIR] PREFIX LIBDIR" >&2; exit 2; }
WORK=
while getopts w: opt; do
	case $opt in
	w) WORK=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
mkdir -p "$1"
PREFIX=$(cd "$1" && pwd)
LIBDIR=$(cd "$2" && pwd)
WORK=${WORK:-$PREFIX.work}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
PVFS_SRC=$(cd "$HERE/../.." && pwd)
VERSION=4.0.2
SRC=$WORK/mpich-$VERSION
ROMIO=$SRC/src/mpi/romio
BUILD=$WORK/build
LOG=$WORK/log
# What MPICH gets: the issue's configuration plus libpvfs.
CONFIG_ARGS="--prefix=$PREFIX --with-device=ch3:nemesis --disable-fortran --disable-cxx
	--with-file-system=ufs+nfs+pvfs --with-pm=hydra --with-hwloc=/usr
	--with-datatype-engine=dataloop --disable-static"
BUILD_DEPS="dpkg-dev libhwloc-dev python3 autoconf automake libtool make gcc"
mkdir -p "$LOG"

step() { echo "== build-mpich: $*"; }
fail() { echo "build-mpich: $*" >&2; exit 1; }
# run LOGNAME CMD...: quiet unless it fails.
run() {
	local name=$1
	shift
	"$@" >"$LOG/$name.log" 2>&1 || { tail -40 "$LOG/$name.log"; fail "$name failed (log: $LOG/$name.log)"; }
}

install_build_deps() {
	local p missing=""
	for p in $BUILD_DEPS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || fail "missing packages:$missing (install them as root)"
	step "installing$missing"
	# a fresh system has no package lists yet
	run apt-update apt-get update
	# shellcheck disable=SC2086  # a list of package names
	DEBIAN_FRONTEND=noninteractive run apt-install apt-get install -y -qq $missing
}

# apt-get source needs deb-src lines; mirror the deb ones unless some exist.
ensure_deb_src() {
	local list=/etc/apt/sources.list.d/pvfs-deb-src.sources
	if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		[ -f /etc/apt/sources.list.d/debian.sources ] || fail "no deb-src entry and no debian.sources to mirror"
		[ "$(id -u)" = 0 ] || fail "apt has no deb-src entry (add one as root)"
		sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$list"
	fi
	# the source lists may never have been fetched (or were cleaned away)
	if [ "$(id -u)" = 0 ]; then
		run apt-update apt-get update
	fi
}

fetch() {
	local tarball=$WORK/dl/mpich_$VERSION.orig.tar.xz
	[ -f "$tarball" ] && return 0
	step "fetching Debian's mpich source package"
	ensure_deb_src
	mkdir -p "$WORK/dl"
	(cd "$WORK/dl" && run apt-source apt-get source --download-only mpich)
	[ -f "$tarball" ] || fail "apt-get source did not give $tarball"
}

# The patch's checksum names the unpacked tree: a changed patch starts over.
unpack_and_patch() {
	local sum
	sum=$(md5sum <"$HERE/romio-pvfs.patch" | cut -c1-12)
	[ -f "$WORK/patched.$sum" ] && return 0
	step "unpacking and patching ROMIO"
	rm -rf "$SRC" "$BUILD" "$WORK"/patched.* "$WORK"/configured "$WORK"/installed
	tar -C "$WORK" -xJf "$WORK/dl/mpich_$VERSION.orig.tar.xz"
	(cd "$ROMIO" && run patch patch -p1 -i "$HERE/romio-pvfs.patch")
	sync_driver
	(cd "$ROMIO" && run autogen ./autogen.sh)
	touch "$WORK/patched.$sum"
}

# Copy the driver in, keeping unchanged files' times for make.
sync_driver() {
	local f
	mkdir -p "$ROMIO/adio/ad_pvfs"
	for f in "$HERE"/ad_pvfs/*; do
		cmp -s "$f" "$ROMIO/adio/ad_pvfs/${f##*/}" || cp "$f" "$ROMIO/adio/ad_pvfs/"
	done
}

configure_mpich() {
	[ -f "$WORK/configured" ] && return 0
	step "configuring MPICH (log: $LOG/configure.log)"
	mkdir -p "$BUILD"
	# shellcheck disable=SC2086
	(cd "$BUILD" && run configure "$SRC/configure" $CONFIG_ARGS \
		CPPFLAGS="-I$PVFS_SRC/include" \
		LDFLAGS="-L$LIBDIR -Wl,-rpath,$LIBDIR" LIBS="-lpvfs")
	touch "$WORK/configured"
}

make_install() {
	if [ -f "$WORK/installed" ] && [ -x "$PREFIX/bin/mpicc" ] &&
		[ -z "$(find "$ROMIO/adio/ad_pvfs" -newer "$WORK/installed" -print -quit)" ]; then
		step "MPICH in $PREFIX is up to date"
		return 0
	fi
	step "make -j2 && make install (log: $LOG/make.log; ~10-20 min the first time)"
	run make make -C "$BUILD" -j2
	run make-install make -C "$BUILD" install
	touch "$WORK/installed"
	step "installed: $PREFIX/bin/mpicc, $PREFIX/bin/mpiexec"
}

[ -f "$LIBDIR/libpvfs.so" ] || fail "$LIBDIR/libpvfs.so not found (build libpvfs first)"
install_build_deps
fetch
unpack_and_patch
sync_driver
configure_mpich
make_install
