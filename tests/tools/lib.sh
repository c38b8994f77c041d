# lib.sh - sourced by the shell tools' tests (tests/tools/*.sh).
#
# Gives each test its own temporary directory $T with a 4-iod pvfs-local
# file system (mount prefix /pvfs), PVFSTAB_FILE exported, the built tools
# first in PATH, and a trap that stops the daemons and removes $T.  Checks
# print "ok - NAME" or "not ok - NAME" (with the command's output); finish
# prints "N passed, M failed" and exits non-zero on any failure, showing
# the daemons' logs then.
set -u
B=${PVFS_BUILDDIR:-$(pwd)}
T=$(mktemp -d "${TMPDIR:-/tmp}/pvfs-tools.XXXXXX")
PASS=0
FAIL=0
PATH="$B:$PATH"
export PATH
unset PVFS_TIMEOUT

lib_cleanup() {
	"$B/pvfs-local" stop "$T/fs" >/dev/null 2>&1
	rm -rf "$T"
}
trap lib_cleanup EXIT
trap 'exit 1' INT TERM HUP

# start_cluster [NIODS [OPTION...]]: start (or restart) the file system in
# $T/fs; OPTIONs go to pvfs-local start.
start_cluster() {
	n=${1:-4}
	[ $# -gt 0 ] && shift
	if ! "$B/pvfs-local" start "$T/fs" --iods "$n" "$@" >"$T/start.out" 2>&1; then
		cat "$T/start.out"
		echo "0 passed, 1 failed"
		exit 1
	fi
	PVFSTAB_FILE="$T/fs/pvfstab"
	export PVFSTAB_FILE
	MGR_PORT=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' "$PVFSTAB_FILE")
	URL="pvfs://127.0.0.1:$MGR_PORT"
}

ok() {
	PASS=$((PASS + 1))
	echo "ok - $1"
}

not_ok() {
	FAIL=$((FAIL + 1))
	echo "not ok - $1"
	for f in "$T/out" "$T/err"; do
		[ -s "$f" ] && sed "s|^|#   $(basename "$f"): |" "$f" | head -20
	done
	return 0
}

# check NAME CMD...: CMD succeeds.
check() {
	n=$1
	shift
	if "$@" >"$T/out" 2>"$T/err"; then ok "$n"; else not_ok "$n"; fi
}

# check_rc NAME RC CMD...: CMD exits with RC; its output is kept in
# $T/last.out and $T/last.err for the checks that follow.
check_rc() {
	n=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	cp "$T/out" "$T/last.out"
	cp "$T/err" "$T/last.err"
	if [ "$rc" -eq "$want" ]; then ok "$n"; else echo "#   exit $rc, want $want"; not_ok "$n"; fi
}

# check_fail NAME RC 'exact stderr line' CMD...: CMD exits with RC and
# says exactly that on stderr, nothing on stdout.
check_fail() {
	n=$1 want=$2 msg=$3
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qxF -- "$msg" "$T/err" && [ ! -s "$T/out" ]; then
		ok "$n"
	else
		echo "#   exit $rc (want $want), want stderr: $msg"
		not_ok "$n"
	fi
}

# check_err NAME RC 'text' CMD...: CMD exits with RC and its stderr holds
# the text.
check_err() {
	n=$1 want=$2 msg=$3
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$msg" "$T/err"; then
		ok "$n"
	else
		echo "#   exit $rc (want $want), want in stderr: $msg"
		not_ok "$n"
	fi
}

# check_quiet NAME CMD...: CMD succeeds and prints nothing at all.
check_quiet() {
	n=$1
	shift
	if "$@" >"$T/out" 2>"$T/err" && [ ! -s "$T/out" ] && [ ! -s "$T/err" ]; then
		ok "$n"
	else
		not_ok "$n"
	fi
}

# check_out NAME 'expected stdout' CMD...: CMD succeeds with that output.
check_out() {
	n=$1 want=$2
	shift 2
	if "$@" >"$T/out" 2>"$T/err" && [ "$(cat "$T/out")" = "$want" ]; then
		ok "$n"
	else
		printf '#   want: %s\n' "$want"
		not_ok "$n"
	fi
}

# check_grep NAME REGEX CMD...: CMD succeeds and its stdout matches REGEX.
check_grep() {
	n=$1 re=$2
	shift 2
	if "$@" >"$T/out" 2>"$T/err" && grep -qE -- "$re" "$T/out"; then
		ok "$n"
	else
		echo "#   want match: $re"
		not_ok "$n"
	fi
}

# unit_line UNITFILE VARFILE: the unit's ExecStart as systemd would run
# it, its $VARIABLES taken from VARFILE (the defaults file it names).
unit_line() {
	line=$(sed -n 's/^ExecStart=//p' "$1")
	(
		. "$2"
		eval "set -- ${line#* }"
		echo "${line%% *} $*"
	)
}

# wait_port LABEL NAME: wait up to 10 s for daemon NAME's port file in
# $T/run (started with --port-file), then check that it is there.
wait_port() {
	n=0
	while [ ! -s "$T/run/$2.port" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	check "$1: $2 serves" test -s "$T/run/$2.port"
}

# A file of N random bytes.
mkrand() {
	head -c "$2" /dev/urandom >"$1"
}

sum_of() {
	md5sum <"$1" | cut -d' ' -f1
}

# same NAME FILE1 FILE2: equal checksums.
same() {
	if [ "$(sum_of "$2")" = "$(sum_of "$3")" ]; then ok "$1"; else not_ok "$1"; fi
}

finish() {
	echo "$PASS passed, $FAIL failed"
	if [ "$FAIL" -ne 0 ]; then
		for f in "$T"/fs/run/*.log "$T"/fs/run/*.err; do
			[ -s "$f" ] && { echo "# --- $f"; tail -20 "$f"; }
		done
		exit 1
	fi
	exit 0
}
