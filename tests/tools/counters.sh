#!/bin/sh
# counters.sh - pvfs-counters: each daemon's requests, errors, bytes and
# connections move by what the test did; the latency figures are ordered;
# Prometheus' text format is well formed; a dead iod is named and shows
# as down; rates over an interval.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster 2

# count DAEMON OP FIELD: a figure of the table in $T/c (2: count,
# 3: errors, 4..7: p50, p90, p99, max).
count() {
	awk -v d="$1" -v op="$2" -v f="$3" '
		/^[^ ]/ { cur = $2 }
		cur == d && $1 == op { print $f; found = 1 }
		END { if (!found) print 0 }' "$T/c"
}
snap() { pvfs-counters >"$T/c" 2>"$T/c.err"; }

mkrand "$T/r" 3000000
snap
w0=$(count iod0 IOD_WRITE 2)
pvfs-cp "$T/r" /pvfs/r
snap
stat0=$(count mgr MGR_STAT 2)
staterr0=$(count mgr MGR_STAT 3)
pvfs-stat /pvfs/nonexistent >/dev/null 2>&1
check "counters: exit 0 with every daemon up" snap
check_out "counters: one more failed MGR_STAT" "$((staterr0 + 1))" count mgr MGR_STAT 3
check "counters: MGR_STAT counted the failure too" test "$(count mgr MGR_STAT 2)" -gt "$stat0"
check "counters: the copy's IOD_WRITE on iod0" test "$(count iod0 IOD_WRITE 2)" -gt "$w0"
check "counters: the mgr's journal commits the create" test "$(count mgr JOURNAL_COMMIT 2)" -ge 1
check "counters: p50 <= p90 <= p99 <= max for every request kind" awk '
	/^  [A-Z]/ && $2 != "count" { if (!($4 <= $5 && $5 <= $6 && $6 <= $7)) exit 1 }' "$T/c"
check "counters: the iods received the 3 MB" sh -c "
	pvfs-counters -P | awk '/^pvfs_received_bytes_total\\{.*daemon=\"iod/ { s += \$2 } END { exit s < 3000000 }'"

check "counters -P: exit 0" sh -c "pvfs-counters -P >'$T/p'"
check "counters -P: every sample line is NAME{LABELS} VALUE" awk '
	/^#/ { next }
	!/^[a-z_]+\{([a-z_]+="[^"]*",?)+\} -?[0-9.e+-]+$/ { print; bad = 1 }
	END { exit bad }' "$T/p"
check "counters -P: HELP and TYPE before each family's samples" awk '
	/^# TYPE / { typed[$3] = 1; next }
	/^#/ { next }
	{ n = $0; sub(/\{.*/, "", n); b = n; sub(/_(sum|count)$/, "", b)
	  if (!typed[n] && !typed[b]) { print "untyped " n; bad = 1 } }
	END { exit bad }' "$T/p"
check_grep "counters -P: the write's duration summary" \
	'^pvfs_request_duration_seconds\{fs="/pvfs",daemon="iod0",op="IOD_WRITE",quantile="0.99"\} [0-9.]+$' cat "$T/p"
check_grep "counters -P: up" '^pvfs_up\{fs="/pvfs",daemon="iod1"\} 1$' cat "$T/p"

check_grep "counters -i: rates for each daemon" '^/pvfs +iod1 +[0-9.]+ ' \
	pvfs-counters -i 0.2 -n 1
check_rc "counters --count without --interval: usage" 2 pvfs-counters -n 3
check_rc "counters -P -i: usage" 2 pvfs-counters -P -i 1

pvfs-local kill "$T/fs" iod1 KILL >/dev/null 2>&1
sleep 0.2
check_rc "counters with iod1 dead: exit 1" 1 pvfs-counters
check_grep "counters: iod1 shown down" '^/pvfs iod1 127\.0\.0\.1:[0-9]+: down$' cat "$T/last.out"
check_grep "counters: the error names iod 1" 'iod 1 127\.0\.0\.1:[0-9]+: Connection refused' cat "$T/last.err"
check_rc "counters -P with iod1 dead: exit 1" 1 pvfs-counters -P
check_grep "counters -P: iod1 is down" '^pvfs_up\{fs="/pvfs",daemon="iod1"\} 0$' cat "$T/last.out"
finish
