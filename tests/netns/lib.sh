# lib.sh - sourced by the multi-host tests (tests/netns/*.sh): emulated
# hosts on one machine, each a network namespace joined to a bridge by a
# veth pair, the way a cluster's nodes share a switch.
#
#   netns_init            bridge and temporary directory $T; skips (77)
#                         unless root with ip(8) and namespaces
#   netns_host NAME N     a host NAME with address $NETNS_NET.N on eth0
#                         (its link shaped to $NETNS_RATE when set)
#   on NAME CMD...        run CMD on host NAME
#   netns_fs IODHOSTS...  a file system: the mgr on host "mgr" (which
#                         must exist, with $NETNS_MGR_ARGS), one iod on
#                         each named host, a pvfstab for clients at
#                         $T/pvfstab (exported)
#   netns_fs_stop         stop it and remove its state
#   netns_stop NAME       stop one daemon (mgr, iod0, ...)
#   t NAME SCRIPT         run SCRIPT with bash -e; "ok"/"not ok" lines
#   finish                "N passed, M failed"; exit status
#
# Only addresses of a private test range ($NETNS_NET.0/24, default
# 10.78.0) are used, only on interfaces of namespaces created here; the
# bridge lives in a namespace of its own, so the root namespace is never
# touched.  Every namespace and every process in one is removed on exit.
set -u
B=${PVFS_BUILDDIR:-$(pwd)}
S=${PVFS_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
NETNS_NET=${NETNS_NET:-10.78.0}
NETNS_TAG=pvt$$
NETNS_LIST=()
PASS=0
FAIL=0
PATH="$B:$PATH"
export PATH

netns_cleanup() {
	local ns pid
	trap - EXIT INT TERM HUP
	for ns in "${NETNS_LIST[@]}"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -TERM "$pid" 2>/dev/null
		done
	done
	sleep 0.3
	for ns in "${NETNS_LIST[@]}"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "${T:-}" ] && rm -rf "$T"
}

netns_ns_add() {
	ip netns add "$1" || { echo "ip netns add $1 failed"; exit 1; }
	NETNS_LIST+=("$1")
	ip -n "$1" link set lo up
}

netns_init() {
	if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
		echo "SKIP: needs root and ip(8) (network namespaces)"
		exit 77
	fi
	if ! ip netns add "$NETNS_TAG-probe" 2>/dev/null; then
		echo "SKIP: cannot create network namespaces here"
		exit 77
	fi
	ip netns del "$NETNS_TAG-probe"
	T=$(mktemp -d "${TMPDIR:-/tmp}/pvfs-netns.XXXXXX") || exit 1
	trap netns_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	netns_ns_add "$NETNS_TAG-br"
	ip -n "$NETNS_TAG-br" link add br0 type bridge &&
		ip -n "$NETNS_TAG-br" link set br0 up ||
		{ echo "cannot create the bridge"; exit 1; }
	mkdir -p "$T/run"
}

netns_host() {
	local ns=$NETNS_TAG-$1 port=p-$NETNS_TAG-$1
	port=${port:0:15}
	netns_ns_add "$ns"
	ip -n "$NETNS_TAG-br" link add "$port" type veth peer name eth0 netns "$ns" &&
		ip -n "$NETNS_TAG-br" link set "$port" master br0 &&
		ip -n "$NETNS_TAG-br" link set "$port" up &&
		ip -n "$ns" addr add "$NETNS_NET.$2/24" dev eth0 &&
		ip -n "$ns" link set eth0 up ||
		{ echo "cannot set up host $1"; exit 1; }
	# NETNS_RATE: shape both directions of the link with tc tbf (the
	# host's NIC queue holds what its TCP sockets hand it; the switch
	# port towards a host is where congestion drops happen).
	if [ -n "${NETNS_RATE:-}" ]; then
		tc -n "$ns" qdisc add dev eth0 root tbf rate "$NETNS_RATE" burst 64kb limit 4mb &&
			tc -n "$NETNS_TAG-br" qdisc add dev "$port" root tbf rate "$NETNS_RATE" \
				burst 64kb limit 1mb ||
			{ echo "cannot shape host $1's link"; exit 1; }
	fi
	eval "NETNS_ADDR_$1=$NETNS_NET.$2"
}

on() {
	local h=$1
	shift
	ip netns exec "$NETNS_TAG-$h" "$@"
}

netns_addr() {
	eval "echo \$NETNS_ADDR_$1"
}

# netns_daemon HOST NAME BIN ARGS...: start a daemon on HOST and wait for
# the port it publishes.
netns_daemon() {
	local h=$1 name=$2 bin=$3 i
	shift 3
	on "$h" "$bin" "$@" -p "$T/run/$name.pid" --port-file "$T/run/$name.port" \
		-L "$T/run/$name.log" </dev/null ||
		{ echo "$name did not start"; cat "$T/run/$name.log" 2>/dev/null; exit 1; }
	for ((i = 0; i < 250; i++)); do
		[ -s "$T/run/$name.port" ] && return 0
		sleep 0.02
	done
	echo "$name did not publish its port"
	exit 1
}

# netns_fs IODHOST...: iods listen on port 7000 of their host, the mgr on
# 3000 of host "mgr".  Clients on other hosts reach the mgr over TCP with
# no munged: the mgr trusts the uid they claim (--anonymous trust), as a
# closed cluster network may (doc/security.md).
netns_fs() {
	local h k=0
	(umask 077 && head -c32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/secret" &&
		echo >>"$T/secret")
	NETNS_FSID=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
	mkdir -p "$T/meta"
	: >"$T/iodtab"
	for h in "$@"; do
		mkdir -p "$T/iod$k"
		"$B/pvfs-iod" --format --fsid "$NETNS_FSID" --index $k -d "$T/iod$k" >/dev/null ||
			{ echo "cannot format $T/iod$k"; exit 1; }
		netns_daemon "$h" "iod$k" "$B/pvfs-iod" -d "$T/iod$k" \
			-l "$(netns_addr "$h"):7000" -k "$T/secret" --fsid "$NETNS_FSID" --index $k
		echo "$(netns_addr "$h"):7000" >>"$T/iodtab"
		k=$((k + 1))
	done
	netns_daemon mgr mgr "$B/pvfs-mgr" -d "$T/meta" -l "$(netns_addr mgr):3000" \
		-t "$T/iodtab" -k "$T/secret" --fsid "$NETNS_FSID" --anonymous trust \
		${NETNS_MGR_ARGS:-}
	echo "$(netns_addr mgr):$T/meta /pvfs pvfs port=3000,timeout=${NETNS_TIMEOUT:-10} 0 0" \
		>"$T/pvfstab"
	PVFSTAB_FILE=$T/pvfstab
	export PVFSTAB_FILE
}

netns_stop() {
	local pid
	pid=$(cat "$T/run/$1.pid" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
	rm -f "$T/run/$1.pid" "$T/run/$1.port"
}

# netns_fs_stop: stop the file system's daemons and remove its state.
netns_fs_stop() {
	local f
	for f in "$T"/run/*.pid; do
		[ -f "$f" ] && netns_stop "$(basename "$f" .pid)"
	done
	rm -rf "$T/meta" "$T"/iod*
}

t() {
	local name=$1 out
	shift
	if out=$(bash -e -o pipefail -c "$1" 2>&1); then
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
	if [ "$FAIL" -ne 0 ]; then
		for f in "$T"/run/*.log; do
			[ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
		done
	fi
	[ "$FAIL" -eq 0 ]
	exit
}
