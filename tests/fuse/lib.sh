# lib.sh - sourced by the FUSE client's tests (tests/fuse/*.sh): the tools'
# lib.sh (a 4-iod pvfs-local file system in $T, check helpers), plus
#   fz_mount DIR [OPTION...]   mount the file system at DIR with pvfs-fuse
#   fz_umount DIR              unmount it (fusermount3 -u)
# and a trap that unmounts every mount made here before the daemons stop,
# also when a check fails or the test is killed.  Skips (77) when
# pvfs-fuse is not built or /dev/fuse or fusermount3 is missing.
B=${PVFS_BUILDDIR:-$(pwd)}
if [ ! -x "$B/pvfs-fuse" ]; then
	echo "SKIP: pvfs-fuse is not built (configure found no libfuse3)"
	exit 77
fi
if [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null 2>&1; then
	echo "SKIP: no /dev/fuse or no fusermount3 here"
	exit 77
fi
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
FZ_MOUNTS=""
fz_cleanup() {
	for m in $FZ_MOUNTS; do
		mountpoint -q "$m" 2>/dev/null && { fusermount3 -u "$m" 2>/dev/null ||
			fusermount3 -uz "$m" 2>/dev/null; }
	done
	lib_cleanup
}
trap fz_cleanup EXIT
# Mount points under $T: let other users reach them (the non-root checks).
chmod 711 "$T"

fz_mount() {
	d=$1
	shift
	mkdir -p "$d"
	FZ_MOUNTS="$FZ_MOUNTS $d"
	"$B/pvfs-fuse" "$d" "$@" >"$T/mount.out" 2>&1 || { cat "$T/mount.out"; return 1; }
}

fz_umount() {
	fusermount3 -u "$1"
}
