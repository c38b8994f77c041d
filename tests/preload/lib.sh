# lib.sh - sourced by the preload tests: starts a 4-iod file system with
# pvfs-local in a temporary directory (stopped by a trap), and counts.
#   pv CMD...      run CMD with the shim preloaded
#   t NAME SCRIPT  run SCRIPT with a preloaded bash -e; pass on exit 0
#   finish         print "N passed, M failed" and exit accordingly
# The shim is built without sanitizers in every build (see Makefile.am),
# so these tests run in --enable-asan builds too.
set -u
B=${PVFS_BUILDDIR:-$(pwd)}
S=${PVFS_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHIM=$B/.libs/libpvfs-preload.so
if [ ! -f "$SHIM" ]; then
	echo "SKIP: $SHIM is not built"
	exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/pvfs-preload.XXXXXX")
pl_cleanup() {
	"$B/pvfs-local" stop "$T/fs" >/dev/null 2>&1
	rm -rf "$T"
}
trap pl_cleanup EXIT
trap 'exit 1' INT TERM HUP
if ! "$B/pvfs-local" start "$T/fs" --iods 4 --timeout 20 >"$T/start.out" 2>&1; then
	cat "$T/start.out"
	exit 1
fi
export PVFSTAB_FILE=$T/fs/pvfstab
export PVFS_PRELOAD_LOCKDIR=$T
L=$T/local          # local scratch (the tests' cwd)
export L
mkdir -p "$L"
PASS=0
FAIL=0

pv() {
	LD_PRELOAD=$SHIM "$@"
}

t() {
	local name=$1 out
	shift
	if out=$(cd "$L" && LD_PRELOAD=$SHIM bash -e -o pipefail -c "$1" 2>&1); then
		PASS=$((PASS + 1))
		echo "ok - $name"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - $name"
		printf '%s\n' "$out" | tail -n 25 | sed 's/^/    /'
	fi
}

finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit
}
