#!/bin/bash
# check-romio.sh - make check-romio: MPI-IO on PVFS through the ROMIO driver.
# Starts a pvfs-local cluster (4 iods) in a temporary directory, then runs
# with the MPICH of make romio: ROMIO's own tests (romio-tests.txt), each on
# a "pvfs:" file, and the project's MPI-IO tests (src/romio/tests/).  A test
# passes when mpiexec exits 0 in time and the output is " No Errors" and
# nothing else, as ROMIO's runtests wants: some tests judge on rank 0 alone
# while another rank prints its errors, and syshints prints the line on
# every rank that passed.  Any other outcome fails the run after printing
# the test's output.  ROMIO's atomicity, shared_fp and ordered_fp need
# byte-range locks or a shared file pointer, which PVFS does not have: they
# are reported, not run.
#
#   PVFS_BUILDDIR=/path/to/build tests/romio/check-romio.sh
# ROMIO_PREFIX (default $PVFS_BUILDDIR/romio/mpich), ROMIO_BIN (default
# $PVFS_BUILDDIR/romio/bin), ROMIO_TEST_TIMEOUT (seconds per test, 300).
set -u

: "${PVFS_BUILDDIR:?set PVFS_BUILDDIR to the build directory}"
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${ROMIO_PREFIX:-$PVFS_BUILDDIR/romio/mpich}
BIN=${ROMIO_BIN:-$PVFS_BUILDDIR/romio/bin}
TIMEOUT=${ROMIO_TEST_TIMEOUT:-300}
MPIEXEC=$PREFIX/bin/mpiexec
UNSUPPORTED="atomicity shared_fp ordered_fp"

if [ ! -x "$MPIEXEC" ] || [ ! -x "$BIN/simple" ]; then
	echo "check-romio: no MPICH in $PREFIX or programs in $BIN (run make romio)" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pvfs-romio.XXXXXX")
# The mount prefix is also a local directory: syshints needs one path that
# names its hint file in both file systems.
mnt=$tmp/mnt
cleanup() {
	"$PVFS_BUILDDIR/pvfs-local" stop "$tmp/fs" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
"$PVFS_BUILDDIR/pvfs-local" start "$tmp/fs" --iods 4 --prefix "$mnt" >"$tmp/start.log" 2>&1 || {
	cat "$tmp/start.log"
	exit 1
}
export PVFSTAB_FILE=$tmp/fs/pvfstab
mkdir -p "$mnt" "$tmp/log"
cp "$BIN/test_hintfile" "$mnt/test_hintfile"
"$PVFS_BUILDDIR/pvfs-cp" "$BIN/test_hintfile" "$mnt/test_hintfile" || exit 1

passed=0 failed=0 failures=""
# judge LOG: " No Errors" and nothing else (our tests also print their seed)
judge() {
	grep -q '^ No Errors' "$1" &&
		! sed -e 's/ No Errors//g' -e '/^seed [0-9]* (PVFS_TEST_SEED to replay)$/d' "$1" |
		grep -q '[^[:space:]]'
}
# run_one LABEL NPROCS PROGRAM ARGS...: one mpiexec, judged by its output.
run_one() {
	local label=$1 np=$2 prog=$3 log=$tmp/log/$1.log start rc
	shift 3
	start=$(date +%s)
	# stdin from /dev/null: mpiexec forwards it, which would eat the test list
	timeout -k 10 "$TIMEOUT" "$MPIEXEC" -n "$np" "$BIN/$prog" "$@" </dev/null >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && judge "$log"; then
		echo "PASS $label ($(($(date +%s) - start)) s)"
		[ -n "${ROMIO_VERBOSE:-}" ] && sed 's/^/    /' "$log"
		passed=$((passed + 1))
		return
	fi
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "---- $label: timed out after $TIMEOUT s"
	[ -n "${ROMIO_VERBOSE:-}" ] && sed 's/^/    /' "$log"
	echo "FAIL $label (exit $rc): $MPIEXEC -n $np $prog $*"
	sed 's/^/    /' "$log" | tail -40
	failed=$((failed + 1))
	failures="$failures $label"
}

echo "== ROMIO's tests on pvfs:$mnt"
while read -r name np args; do
	case $name in "" | \#*) continue ;; esac
	if [ "$name" = syshints ]; then
		ROMIO_FSTYPE_FORCE=pvfs: run_one "$name" "$np" "$name" "$mnt/test_hintfile"
		continue
	fi
	# shellcheck disable=SC2086  # args is a word list by design
	run_one "$name" "$np" "$name" ${args//@FILE@/pvfs:$mnt/$name}
done <"$HERE/romio-tests.txt"
romio_passed=$passed
# every listed test must have run (a loop that stops early passes nothing)
listed=$(grep -cEv '^(#|[[:space:]]*$)' "$HERE/romio-tests.txt")
if [ $((passed + failed)) -ne "$listed" ]; then
	echo "FAIL: ran $((passed + failed)) of the $listed listed ROMIO tests"
	failed=$((failed + 1))
	failures="$failures (list)"
fi

echo "== the project's MPI-IO tests"
run_one mpiio-rw 4 mpiio-rw "pvfs:$mnt/rw"
# ROMIO's generic paths instead of list I/O and two-phase.
printf '%s\n' "romio_pvfs_listio_read disable" "romio_pvfs_listio_write disable" \
	"romio_cb_read disable" "romio_cb_write disable" >"$tmp/no-listio.hints"
ROMIO_HINTS=$tmp/no-listio.hints run_one mpiio-rw-generic 3 mpiio-rw "pvfs:$mnt/rw-generic" 1000000
run_one mpiio-darray 4 mpiio-darray "pvfs:$mnt/darray" 1001
ROMIO_FSTYPE_FORCE=pvfs: run_one mpiio-darray-plain 3 mpiio-darray "$mnt/darray-plain" 640

echo "check-romio: passed $passed, failed $failed ($romio_passed of ROMIO's tests passed)"
echo "check-romio: unsupported (no locks, no shared file pointer): $UNSUPPORTED"
if [ $failed -ne 0 ]; then
	echo "check-romio: FAILED:$failures"
	exit 1
fi
