#!/bin/bash
# emulated-cluster.sh - the PVFS paper's figure 5 on one host: every iod,
# the mgr and every client in its own network namespace, each joined to a
# bridge by a veth pair whose both directions are rate-limited with tc tbf
# (default 100 Mbit/s, the paper's fast ethernet).  Runs pvfs-bench data
# for 1, 2, 4, 8 iods x 1..8 clients and prints aggregate MB/s tables and
# what each added iod adds.
#
# Only addresses of a private test range (default 10.77.0.0/24) are used,
# and only on interfaces of the namespaces this script creates; the bridge
# lives in a namespace of its own, so the root namespace is never touched.
# Every namespace, interface and process it made is removed on exit, even
# on failure or ^C.  Needs root, iproute2 (ip, tc) and the kernel's veth,
# bridge and sch_tbf.
#
# Usage: scripts/bench/emulated-cluster.sh [BUILDDIR] [options]
#   --rate R         link rate for tc (default 100mbit)
#   --iods "1 2 4 8" iod counts
#   --clients "1 2 3 4 5 6 7 8"  client counts
#   --mb-per-iod M   each client writes M MiB per iod in use (default 8;
#                    the paper used 2), in one call, then reads it back in
#                    one call: the paper's test, and no per-request
#                    synchronisation of the clients' streams
#   --block N        request size instead of one call per phase (e.g. 1M,
#                    as make bench: a client's choice of copies with an
#                    iod down is made per call)
#   --ssize N        stripe size (default 64K)
#   --net A.B.C      /24 prefix (default 10.77.0; tests/netns uses 10.78.0)
#   --copies N       issue 17's speed targets: beside each plain point on
#                    N iods or more, the same job on a file of N copies, and
#                    again with iod 1 killed (SIGKILL in its namespace) before it
#                    starts and restarted after; a table of the three ratios
#                    against the targets (mirrored write >= 0.45 x plain,
#                    mirrored read >= 1 x plain, read with an iod down >=
#                    0.60 x healthy mirrored read).  E.g. --copies 2
#                    --iods "2 4" --clients "1 4" (about 5 minutes)
set -u
set -o pipefail

PROG=emulated-cluster
B=
RATE=100mbit
IODS_LIST="1 2 4 8"
CLIENTS_LIST="1 2 3 4 5 6 7 8"
MB_PER_IOD=8
BLOCK=
SSIZE=64K
NET=10.77.0
COPIES=0
# Queues of the shaped links.  A host's own NIC queue holds what its TCP
# sockets hand it (TCP small queues: ~128 KiB per flow), so it does not
# drop; the switch port towards a host is where congestion drops happen.
NIC_QUEUE=4mb
PORT_QUEUE=1mb
MAX_IODS=8
MAX_CLIENTS=8

err() { echo "$PROG: $*" >&2; }
die() { err "$@"; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--rate) RATE=$2; shift ;;
	--iods) IODS_LIST=$2; shift ;;
	--clients) CLIENTS_LIST=$2; shift ;;
	--mb-per-iod) MB_PER_IOD=$2; shift ;;
	--block) BLOCK=$2; shift ;;
	--ssize) SSIZE=$2; shift ;;
	--net) NET=$2; shift ;;
	--copies) COPIES=$2; shift ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) B=$1 ;;
	esac
	shift
done
[ -n "$B" ] || B=${PVFS_BUILDDIR:-$(pwd)}
B=$(cd "$B" && pwd) || die "no build directory"
for p in pvfs-mgr pvfs-iod pvfs-bench; do
	[ -x "$B/$p" ] || die "$B/$p not found (build first; give BUILDDIR)"
done
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
if ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
	echo "$PROG: installing iproute2" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null ||
		die "iproute2 (ip, tc) is missing"
fi
for n in $IODS_LIST; do [ "$n" -le $MAX_IODS ] || die "at most $MAX_IODS iods"; done
for n in $CLIENTS_LIST; do [ "$n" -le $MAX_CLIENTS ] || die "at most $MAX_CLIENTS clients"; done
case $COPIES in
0 | [2-8]) ;;
*) die "--copies: 2 to 8" ;;
esac

# Hosts mgr, iod0.. and c0.., shaped links: tests/netns/lib.sh.
NETNS_NET=$NET
NETNS_RATE=$RATE
NETNS_TIMEOUT=60
PVFS_BUILDDIR=$B
. "$(dirname "$0")/../../tests/netns/lib.sh"

setup_net() {
	local k
	netns_init
	netns_host mgr 2
	for ((k = 0; k < MAX_IODS; k++)); do netns_host "iod$k" $((10 + k)); done
	for ((k = 0; k < MAX_CLIENTS; k++)); do netns_host "c$k" $((100 + k)); done
}

# A fresh file system over the first N iods.
start_fs() {
	local k hosts=()
	for ((k = 0; k < $1; k++)); do hosts+=("iod$k"); done
	netns_fs "${hosts[@]}"
}

# ---- runs ----

# link_rate: one TCP stream from client 0 to iod 0 over two shaped links.
link_rate() {
	local out
	on iod0 "$B/pvfs-bench" tcp-sink "$NET.10:7100" >/dev/null &
	sleep 0.3
	out=$(on c0 "$B/pvfs-bench" tcp-send "$NET.10:7100" -s 64M) ||
		die "link test failed"
	wait
	sed -n 's/.* rate=//p' <<<"$out"
}

# point N C [KIND]: aggregate write and read MB/s of C clients on N iods.
# KIND mirror: the file is made first with COPIES copies (pvfs-cp
# --mirror); pvfs-bench's rank 0 opens it with O_CREAT|O_TRUNC, which
# keeps an existing file's layout.  KIND down: the same, with iod 1
# killed after the file is made and started again after the run, so both
# phases run degraded (a client runs --sync-dir ranks with no read-only
# mode, so the read follows a write with the iod down, whose copy then
# holds nothing fresh: every read is served by the surviving copies).
point() {
	local n=$1 c=$2 kind=${3:-plain} j pids=() size=$(($1 * MB_PER_IOD))M
	local sync=$T/sync.$1.$2.${3:-plain} path=/pvfs/f.$1.$2.${3:-plain}
	mkdir -p "$sync"
	if [ "$kind" != plain ]; then
		: >"$T/empty"
		on c0 "$B/pvfs-cp" --mirror="$COPIES" --pcount "$n" --ssize "$SSIZE" \
			"$T/empty" "$path" >"$sync/cp" 2>&1 ||
			{ cat "$sync/cp" >&2; die "cannot make the mirrored file $path"; }
	fi
	[ "$kind" = down ] && iod_kill 1
	for ((j = c - 1; j >= 0; j--)); do
		on "c$j" "$B/pvfs-bench" data \
			--rank "$j" --nprocs "$c" --sync-dir "$sync" -s "$size" -b "${BLOCK:-$size}" \
			-S "$SSIZE" -p "$n" --path "$path" >"$sync/out.$j" 2>&1 &
		pids+=($!)
	done
	for j in "${pids[@]}"; do
		wait "$j" || {
			cat "$sync"/out.* >&2
			tail -n 15 "$T"/run/*.log >&2
			die "run $n iods x $c clients ($kind) failed"
		}
	done
	if [ "$kind" = down ]; then
		(iod_start 1) >"$sync/start" 2>&1 || { cat "$sync/start" >&2; die "cannot start iod1 again"; }
	fi
	grep '^RESULT data' "$sync/out.0" | tr ' ' '\n' |
		awk -F= '$1 == "write" { w = $2 } $1 == "read" { r = $2 } END { print w, r }'
}

# iod_kill K: SIGKILL iod K (a crash: no goodbye to the mgr or clients).
iod_kill() {
	local pid
	pid=$(cat "$T/run/iod$1.pid") || die "no pid for iod$1"
	kill -KILL "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
	rm -f "$T/run/iod$1.pid" "$T/run/iod$1.port"
}

# iod_start K: start iod K again on its host, as netns_fs did.
iod_start() {
	netns_daemon "iod$1" "iod$1" "$B/pvfs-iod" -d "$T/iod$1" \
		-l "$(netns_addr "iod$1"):7000" -k "$T/secret" --fsid "$NETNS_FSID" --index "$1"
}

main() {
	local n c wr rd link
	setup_net
	start_fs 1
	link_rate >"$T/link" || exit 1
	link=$(cat "$T/link")
	[ -n "$link" ] || die "no link rate measured"
	netns_fs_stop
	echo "emulated cluster: links $RATE (tc tbf), one TCP stream over a link: $link MB/s"
	echo "each client writes then reads $MB_PER_IOD MiB x iods in ${BLOCK:+requests of }${BLOCK:-one call each}, stripe $SSIZE;"
	echo "three runs, the second reported (pvfs-bench data --sync-dir)"
	: >"$T/results"
	for n in $IODS_LIST; do
		start_fs "$n"
		for c in $CLIENTS_LIST; do
			point "$n" "$c" >"$T/point" || exit 1
			read -r wr rd <"$T/point"
			[ -n "$rd" ] || die "no figures for $n iods x $c clients"
			echo "$n $c $wr $rd" >>"$T/results"
			printf '  %d iods x %d clients: write %7.1f MB/s  read %7.1f MB/s\n' \
				"$n" "$c" "$wr" "$rd"
			if [ "$COPIES" -gt 0 ] && [ "$n" -ge "$COPIES" ]; then
				mirror_points "$n" "$c"
			fi
		done
		netns_fs_stop
	done
	report "$link"
	if [ "$COPIES" -gt 0 ]; then
		report_mirror
	fi
}

# mirror_points N C: the mirrored point and the one with iod 1 down,
# beside the plain one just run.
mirror_points() {
	local n=$1 c=$2 mw mr dw dr
	point "$n" "$c" mirror >"$T/point" || exit 1
	read -r mw mr <"$T/point"
	[ -n "$mr" ] || die "no mirrored figures for $n iods x $c clients"
	printf '  %d iods x %d clients, %d copies: write %7.1f MB/s  read %7.1f MB/s\n' \
		"$n" "$c" "$COPIES" "$mw" "$mr"
	point "$n" "$c" down >"$T/point" || exit 1
	read -r dw dr <"$T/point"
	[ -n "$dr" ] || die "no iod-down figures for $n iods x $c clients"
	printf '  %d iods x %d clients, %d copies, iod 1 down: write %7.1f MB/s  read %7.1f MB/s\n' \
		"$n" "$c" "$COPIES" "$dw" "$dr"
	echo "$n $c $mw $mr $dw $dr" >>"$T/mirror"
}

# report_mirror: the plain and mirrored figures side by side, and the
# ratios of issue 17's targets.
report_mirror() {
	echo
	echo "mirrored files ($COPIES copies) beside plain ones, MB/s; ratios against issue 17's targets"
	awk -v copies="$COPIES" '
		NR == FNR { pw[$1 " " $2] = $3; pr[$1 " " $2] = $4; next }
		function rat(a, b) { return b > 0 ? a / b : 0 }
		function ok(v, t) { return v >= t ? "yes" : "NO" }
		FNR == 1 {
			printf "  %4s %7s %7s %7s %7s %7s %7s %7s %11s %11s %11s\n", "iods", "clients",
			    "plain w", "plain r", "mirr w", "mirr r", "down w", "down r",
			    "w >= 0.45", "r >= 1", "down >= 0.6"
		}
		{
			k = $1 " " $2; wr = rat($3, pw[k]); rr = rat($4, pr[k]); dr = rat($6, $4)
			printf "  %4d %7d %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %6.2f %-4s %6.2f %-4s" \
			    " %6.2f %s\n", $1, $2, pw[k], pr[k], $3, $4, $5, $6, wr, ok(wr, 0.45),
			    rr, ok(rr, 1), dr, ok(dr, 0.6)
			printf "RESULT emulated-mirror iods=%d clients=%d copies=%d plain_write=%.1f" \
			    " plain_read=%.1f write=%.1f read=%.1f down_write=%.1f read_down=%.1f" \
			    " write_ratio=%.3f read_ratio=%.3f down_ratio=%.3f\n", $1, $2, copies,
			    pw[k], pr[k], $3, $4, $5, $6, wr, rr, dr > "/dev/stderr"
		}' "$T/results" "$T/mirror" 2>"$T/mirror.result"
	cat "$T/mirror.result"
}

# report LINK: figure-5 style tables and the per-iod gain.
report() {
	local link=$1 kind col
	for kind in write read; do
		col=3; [ $kind = read ] && col=4
		echo
		echo "aggregate $kind MB/s (rows: clients, columns: iods)"
		awk -v col=$col -v il="$IODS_LIST" -v cl="$CLIENTS_LIST" '
			{ v[$1 " " $2] = $col }
			END {
				ni = split(il, I, " "); nc = split(cl, C, " ")
				printf "  %8s", "clients"
				for (i = 1; i <= ni; i++) printf " %8s", I[i] " iods"
				printf "\n"
				for (c = 1; c <= nc; c++) {
					printf "  %8s", C[c]
					for (i = 1; i <= ni; i++) printf " %8.1f", v[I[i] " " C[c]]
					printf "\n"
				}
			}' "$T/results"
		# Best aggregate once there are as many clients as iods, and
		# what the iods added since the previous count, in links.
		awk -v col=$col -v link="$link" -v il="$IODS_LIST" -v kind=$kind '
			{ if ($2 >= $1 && $col > best[$1]) best[$1] = $col }
			END {
				ni = split(il, I, " "); pn = 0; pb = 0
				for (i = 1; i <= ni; i++) {
					n = I[i]
					add = (best[n] - pb) / link / (n - pn)
					printf "  %d iods: best %s %.1f MB/s (clients >= iods) = %.2f links per iod;" \
						" each added iod added %.2f links\n", n, kind, best[n], best[n] / link / n, add
					printf "RESULT emulated kind=%s iods=%d best=%.1f link=%.1f per_iod_links=%.3f" \
						" added_per_iod_links=%.3f\n", kind, n, best[n], link, best[n] / link / n, add
					pn = n; pb = best[n]
				}
			}' "$T/results"
	done
}

main
