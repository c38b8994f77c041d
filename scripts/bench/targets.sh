#!/bin/bash
# targets.sh - the targets table of `make bench` (issue 18, part 6): each
# target of doc/benchmarks.md and of the speed issues beside its figure and
# the reference measured in the same run, from the RESULT lines that
# pvfs-bench printed (run.sh collects them; `scripts/bench/targets.sh FILE`
# reads any such file).  A target whose case did not run says so: nothing
# here is guessed.
#
# Two references are not of the same run, and the table says so: issue
# 18's "3x today's" 4 KiB rates are relative to the figures recorded
# before that work (BENCH_BASE_4K_WRITE / BENCH_BASE_4K_READ, MB/s, from
# doc/benchmarks.md "Data: all cases"), and the name space of millions
# has its own run, `make bench-names`.
set -u
[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: targets.sh RESULT-FILE" >&2; exit 2; }

awk -v base_w="${BENCH_BASE_4K_WRITE:-155.5}" -v base_r="${BENCH_BASE_4K_READ:-176.1}" '
# Each RESULT line becomes a record: kind, then key=value fields.
$1 == "RESULT" {
	n++
	kind[n] = $2
	for (i = 3; i <= NF; i++) {
		eq = index($i, "=")
		if (eq > 0)
			f[n, substr($i, 1, eq - 1)] = substr($i, eq + 1)
	}
}

# find(KIND, CONDS): the first record of KIND whose fields match CONDS
# ("key=value,key=value"); 0 if none.  First: run.sh runs each headline
# case (with its references) before the variants of the same shape.
function find(k, conds,    i, c, nc, j, eq, ok) {
	nc = split(conds, c, ",")
	for (i = 1; i <= n; i++) {
		if (kind[i] != k)
			continue
		ok = 1
		for (j = 1; j <= nc; j++) {
			eq = index(c[j], "=")
			if (f[i, substr(c[j], 1, eq - 1)] != substr(c[j], eq + 1))
				ok = 0
		}
		if (ok)
			return i
	}
	return 0
}

# row(TARGET, FIGURE-TEXT, REFERENCE-TEXT, GOAL-TEXT, MET): one line.
function row(t, fig, ref, goal, met) {
	printf "%-52s %-10s %-32s %-10s %s\n", t, fig, ref, goal, met
}

function missing(t, goal, why) {
	row(t, "-", why, goal, "not measured")
}

# at_least(TARGET, FIGURE, GOAL, FMT, REFTEXT)
function at_least(t, v, goal, fmt, ref) {
	row(t, sprintf(fmt, v), ref, ">= " sprintf(fmt, goal), v >= goal ? "yes" : "NO")
}

function below(t, v, goal, fmt, ref) {
	row(t, sprintf(fmt, v), ref, "< " sprintf(fmt, goal), v < goal ? "yes" : "NO")
}

# ratio_row(TARGET, KIND, CONDS, KEY, GOAL, REF-KEY, REF-NAME, WHY-MISSING)
function ratio_row(t, k, conds, key, goal, refkey, refname, why,    i) {
	if (!(i = find(k, conds))) {
		missing(t, ">= " sprintf("%.2f", goal), why)
		return
	}
	at_least(t, f[i, key] + 0, goal, "%.2f",
	    refkey == "" ? refname : sprintf("%s %.0f", refname, f[i, refkey]))
}

END {
	print ""
	print "targets (each figure from this run; `met` compares it with the goal)"
	row("target", "figure", "reference (same run)", "goal", "met")

	# doc/benchmarks.md, Targets (the first round).
	ratio_row("1 client x 4 iods: read / one TCP stream", "data",
	    "clients=1,block=1048576,fsync=0", "read_ratio", 0.80, "tcp", "tcp MB/s",
	    "no 1-client 1M case")
	ratio_row("1 client x 4 iods: write / min(TCP, local write)", "data",
	    "clients=1,block=1048576,fsync=0", "write_ratio", 0.60, "tcp", "tcp MB/s",
	    "no 1-client 1M case")
	if ((i = find("meta", "clients=1,op=open+close")))
		below("open+close median (us)", f[i, "p50_us"] + 0, 100, "%.1f",
		    sprintf("local %.1f us", f[i, "local_p50_us"]))
	else
		missing("open+close median (us)", "< 100", "no meta run")
	if ((i = find("meta", "clients=1,op=create+close")))
		at_least("create+close, 1 client (ops/s)", f[i, "rate"] + 0, 2500, "%.0f",
		    sprintf("local %.0f/s", f[i, "local_rate"]))
	else
		missing("create+close, 1 client (ops/s)", ">= 2500", "no meta run")
	if ((i = find("meta", "clients=4,op=create+close")))
		at_least("create+close, 4 clients (ops/s)", f[i, "rate"] + 0, 10000, "%.0f",
		    sprintf("local %.0f/s", f[i, "local_rate"]))
	else
		missing("create+close, 4 clients (ops/s)", ">= 10000", "no 4-client meta run")

	# Issue 18.
	ratio_row("18.1 TCP: 1 client x 4 iods write / 1x4 streams", "data-tcp",
	    "clients=1,fsync=0", "write_streams_ratio", 0.85, "tcp_streams",
	    "streams MB/s", "no TCP run")
	ratio_row("18.1 TCP: 4 clients x 4 iods write / 4x4 streams", "data-tcp",
	    "clients=4,fsync=0", "write_streams_ratio", 0.90, "tcp_streams",
	    "streams MB/s", "no TCP run")
	if ((i = find("meta", "clients=1,op=stat-again")))
		at_least("18.2 repeated stat, unchanged file (ops/s)", f[i, "rate"] + 0,
		    50000, "%.0f", sprintf("local %.0f/s", f[i, "local_rate"]))
	else
		missing("18.2 repeated stat, unchanged file (ops/s)", ">= 50000",
		    "no stat-again op")
	if ((i = find("meta", "clients=1,op=stat")))
		below("18.3 stat median, 4 iods (us)", f[i, "p50_us"] + 0, 50, "%.1f",
		    sprintf("local %.1f us", f[i, "local_p50_us"]))
	else
		missing("18.3 stat median, 4 iods (us)", "< 50", "no meta run")
	if ((i = find("data", "clients=1,block=4096,fsync=0"))) {
		at_least("18.4 4 KiB writes, 1 client (ops/s)",
		    f[i, "write"] * 1e6 / 4096, 75000, "%.0f",
		    sprintf("tcp MB/s %.0f", f[i, "tcp"]))
		at_least("18.4 data -b 4K write / before (" base_w " MB/s)",
		    f[i, "write"] / base_w, 3, "%.2f", "recorded, not this run")
		at_least("18.4 data -b 4K read / before (" base_r " MB/s)",
		    f[i, "read"] / base_r, 3, "%.2f", "recorded, not this run")
	} else
		missing("18.4 4 KiB writes, 1 client (ops/s)", ">= 75000", "no -b 4K case")
	row("18.5 a name space of millions", "-", "make bench-names", "see there", "-")

	# Issue 17.
	ratio_row("17 mirrored write / plain write", "data-mirror", "clients=1",
	    "write_ratio", 0.45, "plain_write", "plain MB/s", "no --copies run")
	ratio_row("17 mirrored read / plain read", "data-mirror", "clients=1",
	    "read_ratio", 1.0, "plain_read", "plain MB/s", "no --copies run")
	ratio_row("17 read with an iod down / healthy", "data-mirror", "clients=1",
	    "down_ratio", 0.60, "read", "healthy MB/s", "no --iod-down run")

	# Issue 16.
	ratio_row("16 mount write / native", "data-mount", "clients=1",
	    "write_ratio", 0.80, "native_write", "native MB/s", "no mount (pvfs-fuse, /dev/fuse)")
	ratio_row("16 mount read / native", "data-mount", "clients=1",
	    "read_ratio", 0.80, "native_read", "native MB/s", "no mount (pvfs-fuse, /dev/fuse)")
}' "$1"
