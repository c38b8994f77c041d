# deps.sh - sourced by demo.sh and test.sh: install what the build needs
# from Debian's archive when it is missing, and build into a directory.

PVFS_DEPS="gcc make autoconf automake libtool pkg-config libev-dev libcmocka-dev clang bsdutils
	fio sqlite3 python3 tar rsync git"  # fio ... git: the preload tests (tests/preload/)
PVFS_DEPS="$PVFS_DEPS munge libmunge-dev"  # MUNGE authentication (doc/security.md)
PVFS_DEPS="$PVFS_DEPS iproute2"  # the multi-host tests (tests/netns/)
PVFS_DEPS="$PVFS_DEPS dpkg-dev libhwloc-dev"  # make romio: MPICH from source (doc/romio.md)
PVFS_DEPS="$PVFS_DEPS libfuse3-dev fuse3 busybox-static"  # pvfs-fuse and its tests (doc/fuse.md)
PVFS_DEPS="$PVFS_DEPS debhelper fakeroot lintian adduser"  # the packages (scripts/deb.sh, tests/netns/deploy.sh)

pvfs_install_deps() {
	missing=""
	for p in $PVFS_DEPS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "missing packages:$missing (run as root, or apt-get install them)" >&2
		exit 1
	fi
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing >/dev/null
}

# pvfs_build BUILDDIR [configure args...]: out-of-tree build, reusing a
# configured tree when there is one.
pvfs_build() {
	builddir=$1
	shift
	[ -x "$PVFS_SRC/configure" ] || (cd "$PVFS_SRC" && autoreconf -fi)
	mkdir -p "$builddir"
	if [ ! -f "$builddir/Makefile" ]; then
		(cd "$builddir" && "$PVFS_SRC/configure" "$@") >"$builddir/configure.out" 2>&1 ||
			{ cat "$builddir/configure.out"; exit 1; }
	fi
	make -C "$builddir" -j"$(nproc)" >"$builddir/make.out" 2>&1 ||
		{ tail -50 "$builddir/make.out"; exit 1; }
}
