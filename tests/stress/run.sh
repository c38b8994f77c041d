#!/bin/bash
# run.sh TEST... - make stress: run each long hardening test in turn, keep
# its output in $PVFS_STRESS_LOGS (default BUILDDIR/stress-logs), print a
# summary line per test with its duration, exit non-zero if any failed.
# Tests are shell scripts or programs; they read PVFS_BUILDDIR/PVFS_SRCDIR
# and print their figures (doc/reliability.md records them).
set -u
: "${PVFS_BUILDDIR:?run through make stress}"
: "${PVFS_SRCDIR:?run through make stress}"
logs=${PVFS_STRESS_LOGS:-$PVFS_BUILDDIR/stress-logs}
mkdir -p "$logs"
export PVFS_BUILDDIR PVFS_SRCDIR
pass=0 fail=0 failed=
for t in "$@"; do
	name=$(basename "$t")
	path=$t
	[ -e "$path" ] || path=$PVFS_SRCDIR/$t
	[ -e "$path" ] || path=$PVFS_BUILDDIR/$t
	start=$(date +%s)
	echo "== $name (log: $logs/$name.log)"
	case $path in
	*.sh) bash "$path" >"$logs/$name.log" 2>&1 ;;
	*) "$path" >"$logs/$name.log" 2>&1 ;;
	esac
	rc=$?
	secs=$(($(date +%s) - start))
	if [ "$rc" = 0 ]; then
		# the figures: "figure" lines, else the summary at the end
		{ grep -E '^(# )?figure' "$logs/$name.log" ||
			tail -4 "$logs/$name.log"; } | head -20 | sed 's/^/    /'
		echo "PASS: $name (${secs}s)"
		pass=$((pass + 1))
	elif [ "$rc" = 77 ]; then
		echo "SKIP: $name: $(tail -1 "$logs/$name.log")"
	else
		echo "FAIL: $name (exit $rc, ${secs}s); last lines:"
		tail -30 "$logs/$name.log"
		fail=$((fail + 1))
		failed="$failed $name"
	fi
done
echo "stress: $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" = 0 ]
