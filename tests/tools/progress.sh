#!/bin/sh
# progress.sh - pvfs-cp draws a progress bar (percentage, size, rate, ETA)
# on a terminal (run under script(1) for a pty) or with --progress, and
# never when stderr is a pipe or a file.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster

mkrand "$T/src" 50000000
# script -qc runs the command in a pty; its output is the terminal's.
tty_cp() {
	script -qec "$1" /dev/null </dev/null | tr '\r' '\n' >"$T/tty"
}
check "on a terminal: copy succeeds" tty_cp "pvfs-cp '$T/src' /pvfs/a"
check_grep "on a terminal: a bar at 100% with rate and time" \
	'^src +100% \[=+\] +4[78]M +[0-9.]+[KMG]?/s in +[0-9]+:[0-9]{2}$' cat "$T/tty"
check "on a terminal, out of PVFS" tty_cp "pvfs-cp /pvfs/a '$T/back'"
check_grep "out of PVFS: bar drawn" '^a +100% \[' cat "$T/tty"
same "the copy is intact" "$T/src" "$T/back"
check_quiet "piped: no bar, nothing printed" sh -c "pvfs-cp '$T/src' /pvfs/b 2>&1 | cat"
check_quiet "stderr to a file: no bar" sh -c "pvfs-cp /pvfs/b '$T/b' 2>'$T/b.err' && test ! -s '$T/b.err'"
check "--progress when piped" sh -c "pvfs-cp --progress '$T/src' /pvfs/c 2>'$T/p.err'"
check_grep "--progress: bar drawn" '100% \[=+\].*/s in ' tr '\r' '\n' <"$T/p.err"
check "--progress, unknown size (stdin)" sh -c "pvfs-cp --progress - /pvfs/d <'$T/src' 2>'$T/p.err'"
check_grep "stdin: bytes and rate, no percentage" '^stdin +4[78]M +[0-9.]+[KMG]?/s$' tr '\r' '\n' <"$T/p.err"
check "--progress to stdout: the data stays clean" sh -c "pvfs-cp --progress /pvfs/d - 2>/dev/null | cmp - '$T/src'"
# A copy cut short (an iod dead) ends on a line that says so, not on one
# that reads like the summary of a finished copy.
pvfs-local kill "$T/fs" iod2 KILL >/dev/null 2>&1
check_rc "--progress with an iod dead: exit 1" 1 pvfs-cp --progress "$T/src" /pvfs/e
check_grep "a copy cut short: its last line says FAILED" \
	'^src +[0-9]+% \[[=> ]*\] +[0-9.]+[KMG]? +[0-9.]+[KMG]?/s FAILED after +[0-9]+:[0-9]{2}$' \
	sh -c "tr '\r' '\n' <'$T/last.err' | grep -v '^\$' | tail -n 1"
finish
