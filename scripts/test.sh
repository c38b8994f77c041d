#!/bin/bash
# test.sh - build and pass the whole test suite: unit and integration tests
# (real daemons on loopback), the same under ASan+UBSan, and make distcheck.
#
#   scripts/test.sh
set -euo pipefail
PVFS_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$PVFS_SRC/scripts/deps.sh"

run_check() {
	local build=$1 label=$2
	echo "== make check ($label)"
	if ! make -C "$build" check -j2 >"$build/check.out" 2>&1; then
		tail -40 "$build/check.out"
		for log in $(grep -l -E '^(FAIL|ERROR)' "$build"/tests/*/*.trs 2>/dev/null); do
			echo "---- ${log%.trs}.log"
			tail -80 "${log%.trs}.log"
		done
		exit 1
	fi
	grep -E '^# (TOTAL|PASS|FAIL|ERROR|SKIP|XFAIL|XPASS)' "$build/check.out"
}

pvfs_install_deps
echo "== build (warnings are errors)"
pvfs_build "$PVFS_SRC/_build" --enable-werror
run_check "$PVFS_SRC/_build" "default build"

echo "== build with AddressSanitizer + UndefinedBehaviorSanitizer"
pvfs_build "$PVFS_SRC/_build-asan" --enable-werror --enable-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	run_check "$PVFS_SRC/_build-asan" "asan+ubsan"

echo "== make distcheck"
make -C "$PVFS_SRC/_build" distcheck >"$PVFS_SRC/_build/distcheck.out" 2>&1 ||
	{ tail -60 "$PVFS_SRC/_build/distcheck.out"; exit 1; }
grep -E 'archives ready|^pvfs-' "$PVFS_SRC/_build/distcheck.out" | head -3

# Totals over both builds: cmocka cases plus the shell suites' own counts.
logs=$(cat "$PVFS_SRC"/_build/tests/*/*.log "$PVFS_SRC"/_build-asan/tests/*/*.log)
cases=$(printf '%s\n' "$logs" | grep -c '^\[       OK \]' || true)
checks=$(printf '%s\n' "$logs" | awk '/^[0-9]+ passed, [0-9]+ failed$/ { p += $1 } END { print p + 0 }')

# MPI-IO: MPICH with the ROMIO driver (built once, ~15 min on 2 cores),
# then ROMIO's tests and the project's on a local cluster (doc/romio.md).
echo "== make check-romio (MPICH 4.0.2 + ROMIO PVFS driver)"
make -C "$PVFS_SRC/_build" check-romio >"$PVFS_SRC/_build/check-romio.out" 2>&1 ||
	{ tail -80 "$PVFS_SRC/_build/check-romio.out"; exit 1; }
grep -E '^(PASS|check-romio:)' "$PVFS_SRC/_build/check-romio.out"
romio=$(awk '/^check-romio: passed/ { print $3 + 0 }' "$PVFS_SRC/_build/check-romio.out")

echo "all suites green"
echo "$((cases + checks + romio)) passed, 0 failed"
