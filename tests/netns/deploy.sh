#!/bin/bash
# deploy.sh - a deployment from the Debian packages on four emulated hosts
# (mgr, io1, io2, client), following doc/administration.md's "Set up"
# steps as an administrator would (issue 15):
#
#   - scripts/deb.sh builds the packages (PVFS_DEBS=DIR reuses built ones);
#   - each host is a network namespace with a view of its own: /etc and
#     /var are overlays of the machine's (changes kept under $T/h/HOST),
#     /run is a directory of its own and /usr shows the host's packages,
#     unpacked with dpkg -x, over the machine's.  The packages' postinst
#     runs there (the user pvfs exists only in those views), so nothing is
#     installed on, or written to, the machine itself;
#   - step 1: one MUNGE key, made on the mgr and copied to every host;
#     munged started from the machine's munge.service on each;
#   - steps 2-5: pvfs-genconfig --auth munge on the mgr, then what it
#     prints for each host, run as printed ("copy" from the mgr's view,
#     "systemctl enable --now" done as systemd would: the unit's
#     Environment, EnvironmentFile, RuntimeDirectory, User and ExecStart
#     with %i, read from the packaged unit); two iods on each iod host
#     through pvfs-iod@.service;
#   - step 6: pvfs-ping, a user's directory, the user's copy of 300 MB in
#     and out (sha256sum), pvfs-ls -l, pvfs-df, pvfs-counters (and -P);
#   - an iod host off the network (its link down): what each tool says,
#     then back, and the earlier file reads back the same;
#   - an iod restarted with another key: pvfs-ping names it.
# What the tools say with an iod host down, as checked here: pvfs-ping
# names both iods within its 5 s (it asks every iod at once) and exits 1;
# pvfs-counters shows them down; pvfs-cp fails naming an iod, its last
# line "FAILED after" (connecting may take up to the client timeout, 30 s
# by default, while the host's address is still in the neighbour cache);
# pvfs-ls lists the names, and pvfs-ls -l prints ? for the sizes it cannot
# get, names the iod once and exits 1.
# Every namespace and every process in one (munged, the daemons, the
# processes holding the views) is removed on exit; the views' mounts go
# with them.  Root only (else skipped, as without overlay mounts); about
# 75 s plus the package build.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/netns/lib.sh"

netns_init
for c in unshare nsenter setpriv munged mungekey unmunge useradd su dpkg-architecture; do
	command -v $c >/dev/null || { echo "SKIP: $c is missing (scripts/deps.sh installs it)"; exit 77; }
done
mkdir -p "$T/probe/u" "$T/probe/w" "$T/probe/m"
if ! unshare -m sh -c "mount -t overlay overlay -o lowerdir=/etc,upperdir=$T/probe/u,\
workdir=$T/probe/w $T/probe/m" 2>/dev/null; then
	echo "SKIP: no overlay mounts here (each host's view of /etc, /var and /usr is one)"
	exit 77
fi
rm -rf "$T/probe"
D=${PVFS_DEBS:-$T/debs}
export S T D
t "scripts/deb.sh: the packages build, lintian finds no error" '
	[ -n "${PVFS_DEBS:-}" ] && exit 0
	sh "$S/scripts/deb.sh" "$D" >"$T/deb.log" 2>&1 || { tail -n 30 "$T/deb.log"; exit 1; }'
[ "$FAIL" -eq 0 ] || finish
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
version=$(dpkg-parsechangelog -l "$S/debian/changelog" -S Version)

# host NAME N PKG...: an emulated host at $NETNS_NET.N with PKG installed
# in its view (above).  A process holds the view's mount namespace; hon
# enters it.  /etc/hosts names every host, as a site's DNS would.
host() {
	local h=$1 n=$2 d=$T/h/$1 p i
	shift 2
	netns_host "$h" "$n"
	mkdir -p "$d"/etc "$d"/etc.w "$d"/var "$d"/var.w "$d"/run "$d"/root "$d"/ctl
	for p; do
		dpkg -x "$D/${p}_${version}_$arch.deb" "$d/root" &&
			dpkg-deb -e "$D/${p}_${version}_$arch.deb" "$d/ctl/$p" ||
			{ echo "cannot unpack $p"; exit 1; }
	done
	on "$h" unshare -m --propagation private sh -c '
		d=$1
		mount -t overlay overlay -o lowerdir=/etc,upperdir=$d/etc,workdir=$d/etc.w /etc &&
			mount -t overlay overlay -o lowerdir=/var,upperdir=$d/var,workdir=$d/var.w /var &&
			mount -t overlay overlay -o lowerdir=$d/root/usr:/usr /usr &&
			mount --bind $d/run /run || exit 1
		echo $$ >$d/pid
		exec sleep 100000' sh "$d" </dev/null >"$d/view.log" 2>&1 &
	for ((i = 0; i < 250; i++)); do
		[ -s "$d/pid" ] && break
		sleep 0.02
	done
	[ -s "$d/pid" ] || { echo "no view for host $h"; cat "$d/view.log"; exit 1; }
	# What dpkg would do besides unpacking: the conffiles' directories
	# and the maintainer scripts.
	[ -d "$d/root/etc" ] && hon "$h" cp -a "$d/root/etc/." /etc/
	for p; do
		[ -x "$d/ctl/$p/postinst" ] || continue
		hon "$h" "$d/ctl/$p/postinst" configure >>"$d/view.log" 2>&1 ||
			{ echo "$p's postinst failed on $h"; cat "$d/view.log"; exit 1; }
	done
}

hon() {
	local h=$1
	shift
	nsenter -t "$(cat "$T/h/$h/pid")" -m -n -- env -u PVFSTAB_FILE -u PVFS_TIMEOUT \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# unit HOST UNITFILE [INSTANCE]: start a unit on HOST as systemd would:
# Environment=, EnvironmentFile= ("-": optional), RuntimeDirectory=,
# ExecStart= as User=/Group=, %i the instance.  A Type=simple unit runs
# in the background; its pid goes to $T/run/HOST-UNIT.pid, its output to
# .log.
unit() {
	local h=$1 f=$2 i=${3:-} name
	name=$h-$(basename "$f" .service)$i
	hon "$h" bash -c '
		f=$1 i=$2 pidf=$3
		val() { sed -n "s/^$1=//p" "$f" | sed "s/%i/$i/g"; }
		while read -r e; do
			[ -n "$e" ] && eval "export $e"
		done < <(val Environment)
		for ef in $(val EnvironmentFile); do
			case $ef in -*) ef=${ef#-}; [ -f "$ef" ] || continue ;; esac
			[ -f "$ef" ] || { echo "$ef: missing"; exit 1; }
			set -a
			. "$ef"
			set +a
		done
		user=$(val User) group=$(val Group) rd=$(val RuntimeDirectory)
		mode=$(val RuntimeDirectoryMode)
		[ -z "$rd" ] || install -d -o "${user:-root}" -g "${group:-root}" \
			-m "${mode:-0755}" "/run/$rd" || exit 1
		eval "set -- $(val ExecStart)"
		[ -z "$user" ] || set -- setpriv --reuid="$user" --regid="${group:-$user}" \
			--init-groups -- "$@"
		echo $$ >"$pidf"
		exec "$@"' sh "$f" "$i" "$T/run/$name.pid" </dev/null >>"$T/run/$name.log" 2>&1 &
	grep -q '^Type=forking' "$f" && wait $!
	return 0
}

# listening HOST PORT: wait until something accepts on HOST's PORT.
listening() {
	local i
	for ((i = 0; i < 250; i++)); do
		hon "$1" bash -c "exec 3<>/dev/tcp/127.0.0.1/$2" 2>/dev/null && return 0
		sleep 0.02
	done
	echo "nothing listens on $1:$2"
	return 1
}

# ---- the hosts, each with the packages its role needs (the doc's table) ----
HOSTS="mgr io1 io2 client"
host mgr 2 pvfs-mgr pvfs-client
host io1 11 pvfs-iod
host io2 12 pvfs-iod
host client 101 pvfs-client
for h in $HOSTS; do
	hon "$h" sh -c "printf '%s\n' '$NETNS_NET.2 mgr' '$NETNS_NET.11 io1' \
		'$NETNS_NET.12 io2' '$NETNS_NET.101 client' >>/etc/hosts"
done
MGRROOT=/proc/$(cat "$T/h/mgr/pid")/root
export -f hon
export NETNS_TAG MGRROOT

t "install: the packages' postinst made the user pvfs on the daemons' hosts" '
	for h in mgr io1 io2; do hon $h id pvfs; done
	hon client id pvfs 2>/dev/null && exit 1
	id pvfs 2>/dev/null && exit 1
	true'

# ---- step 1: MUNGE on every node ----
hon mgr mungekey --create --force --keyfile /etc/munge/munge.key
hon mgr sh -c 'chown munge:munge /etc/munge/munge.key && chmod 0600 /etc/munge/munge.key'
for h in $HOSTS; do
	[ $h = mgr ] || hon $h cp -p "$MGRROOT/etc/munge/munge.key" /etc/munge/
	unit $h /lib/systemd/system/munge.service
done
t "step 1: a credential made on the client decodes on the mgr and the iods" '
	for h in mgr io1 io2; do
		hon client munge -n | hon $h unmunge | grep -q "STATUS: *Success (0)"
	done'

# ---- step 2: the configuration, on the mgr ----
t "step 2: pvfs-genconfig --auth munge on the mgr" '
	hon mgr pvfs-genconfig --auth munge --mgr mgr \
		--iod io1:7000 --iod io1:7001 --iod io2:7000 --iod io2:7001 >"$T/genconfig.out"
	cat "$T/genconfig.out"
	hon mgr test -f /etc/pvfs/secret
	[ "$(hon mgr stat -c %a:%G /etc/pvfs/secret)" = 640:pvfs ]'

# steps 3-5: what genconfig printed for HOST, run there.  "copy F... from
# DIR to DEST" copies from the mgr's view as scp -p would.
printed() {
	awk -v h="On $1:" '$0 == h { on = 1; next } /^On / || /^$/ { on = 0 } on' \
		"$T/genconfig.out" | sed 's/^  //'
}
do_printed() {
	local h=$1 line f src dst units u
	while read -r line; do
		case $line in
		copy\ *)
			set -- $line
			shift
			f=""
			while [ "$1" != from ]; do f="$f $1"; shift; done
			src=$2 dst=$4
			[ $h = mgr ] && continue
			for x in $f; do
				hon $h cp -p "$MGRROOT$src/$x" "$dst" || return 1
			done ;;
		systemctl\ enable\ --now\ *)
			units=${line#systemctl enable --now }
			for u in $units; do
				case $u in
				pvfs-iod@*)
					unit $h "$T/h/$h/root/lib/systemd/system/pvfs-iod@.service" "${u#*@}"
					listening $h "$(port_of $h "iod-${u#*@}")" || return 1 ;;
				pvfs-mgr)
					unit $h "$T/h/$h/root/lib/systemd/system/pvfs-mgr.service"
					listening $h 3000 || return 1 ;;
				*) echo "unknown unit $u"; return 1 ;;
				esac
			done ;;
		*) hon $h sh -c "$line" || return 1 ;;
		esac
	done < <(printed $h)
}
# port_of HOST CONF: the port in -l of /etc/pvfs/CONF.conf on HOST.
port_of() {
	hon "$1" sed -n 's/.*-l [^ ]*:\([0-9]*\).*/\1/p' "/etc/pvfs/$2.conf"
}

for h in io1 io2 mgr; do
	if do_printed $h >"$T/steps-$h.out" 2>&1; then
		PASS=$((PASS + 1))
		echo "ok - steps 3-5 on $h, as pvfs-genconfig printed them"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - steps 3-5 on $h, as pvfs-genconfig printed them"
		sed 's/^/    /' "$T/steps-$h.out"
	fi
done
t "every client: pvfstab copied as printed" '
	grep -q "^On every client: copy pvfstab from /etc/pvfs to /etc/pvfstab" "$T/genconfig.out"
	for h in mgr client; do
		hon $h cp -p "$MGRROOT/etc/pvfs/pvfstab" /etc/pvfstab
	done
	hon client grep -q "auth=munge" /etc/pvfstab'
[ "$FAIL" -eq 0 ] || finish

t "the daemons run as pvfs, the iods two on each iod host" '
	for u in io1-pvfs-iod@0 io1-pvfs-iod@1 io2-pvfs-iod@2 io2-pvfs-iod@3 mgr-pvfs-mgr; do
		pid=$(cat "$T/run/$u.pid")
		h=${u%%-*}
		echo "$u: $(hon $h stat -c %U /proc/$pid) $(cat /proc/$pid/comm)"
		[ "$(hon $h stat -c %U /proc/$pid)" = pvfs ]
		case $u in
		*iod*) [ "$(cat /proc/$pid/comm)" = pvfs-iod ] ;;
		*) [ "$(cat /proc/$pid/comm)" = pvfs-mgr ] ;;
		esac
	done'

# ---- step 6: check from a client, a user's directory ----
t "step 6: pvfs-ping: the mgr, four iods and the mgr's view of each, ok" '
	hon client pvfs-ping >"$T/ping" 2>&1
	cat "$T/ping"
	grep -q "^mgr mgr:3000: ok" "$T/ping"
	for i in 0 1 2 3; do
		grep -q "^iod $i io[12]:700[01]: ok" "$T/ping"
		grep -q "^iod $i .*mgr.s view: ok" "$T/ping"
	done
	grep -qi "not authenticated" "$T/ping" && exit 1
	true'
t "step 6: a home for alice, her copy and listing, as the doc writes them" '
	hon client useradd alice
	hon client sh -c "pvfs-mkdir /pvfs/home && pvfs-mkdir /pvfs/home/alice &&
		pvfs-chown alice: /pvfs/home/alice"
	f=/etc/services
	hon client test -f $f || f=/etc/passwd
	hon client su alice -c "pvfs-cp $f /pvfs/home/alice/ && pvfs-ls -l /pvfs/home/alice" >"$T/ls0"
	cat "$T/ls0"
	grep -q " alice .* ${f##*/}$" "$T/ls0"'

hon client sh -c 'head -c 300000000 /dev/urandom >/var/tmp/big && chmod 644 /var/tmp/big'
SUM=$(hon client sha256sum /var/tmp/big | cut -d" " -f1)
export SUM
START=$(date +%s.%N)
t "300 MB in and out by alice on the client, the same sha256" '
	hon client su alice -c "pvfs-cp /var/tmp/big /pvfs/home/alice/big"
	hon client su alice -c "pvfs-cp /pvfs/home/alice/big /var/tmp/big.back"
	[ "$(hon client sha256sum /var/tmp/big.back | cut -d" " -f1)" = "$SUM" ]
	hon client rm -f /var/tmp/big.back'
echo "# 300 MB in and out: $(awk -v a="$START" -v b="$(date +%s.%N)" \
	'BEGIN { printf "%.1f", b - a }') s"
t "the stripes are on all four iods" '
	for h in io1 io2; do
		[ "$(hon $h find /var/lib/pvfs -type f -size +10M | wc -l)" -eq 2 ]
	done'
t "pvfs-ls -l: alice owns the 300 MB file" '
	hon client pvfs-ls -l /pvfs/home/alice >"$T/ls"
	cat "$T/ls"
	grep -Eq "^-rw.* alice +alice +300000000 .* big$" "$T/ls"'
t "pvfs-df: the four iods" '
	hon client pvfs-df >"$T/df"
	cat "$T/df"
	[ "$(grep -c "io[12]:700[01]" "$T/df")" -ge 4 ]'
t "pvfs-counters: every daemon, the writes counted on each iod" '
	hon client pvfs-counters >"$T/c"
	for d in iod0 iod1 iod2 iod3; do
		n=$(awk -v d=$d "/^[^ ]/ { cur = \$2 } cur == d && \$1 == \"IOD_WRITE\" { print \$2 }" "$T/c")
		[ "${n:-0}" -gt 0 ] || { echo "$d: IOD_WRITE ${n:-none}"; exit 1; }
	done
	awk "/^[^ ]/ { cur = \$2 } cur == \"mgr\" && \$1 == \"MGR_CREATE\" { exit !(\$2 >= 2) }" "$T/c"'
t "pvfs-counters -P: all up, the iods received the 300 MB" '
	hon client pvfs-counters -P >"$T/p"
	[ "$(grep -c "^pvfs_up{.*} 1$" "$T/p")" -eq 5 ]
	awk "/^pvfs_received_bytes_total\\{.*daemon=\"iod/ { s += \$2 } END { exit s < 300000000 }" "$T/p"'

# ---- an iod host off the network ----
ip -n "$NETNS_TAG-io2" link set eth0 down
t "io2 down: pvfs-ping names iods 2 and 3 in seconds, exit 1" '
	start=$(date +%s)
	hon client pvfs-ping >"$T/ping-down" 2>&1 && exit 1
	cat "$T/ping-down"
	[ $(($(date +%s) - start)) -le 9 ]
	grep -q "^iod 2 io2:7000: FAILED" "$T/ping-down"
	grep -q "^iod 3 io2:7001: FAILED" "$T/ping-down"
	grep -q "^iod 0 io1:7000: ok" "$T/ping-down"'
t "io2 down: pvfs-counters shows iods 2 and 3 down, exit 1" '
	start=$(date +%s)
	hon client pvfs-counters >"$T/c-down" 2>"$T/c-down.err" && exit 1
	cat "$T/c-down.err"
	echo "took $(($(date +%s) - start)) s"
	grep -Eq "^/pvfs iod2 io2:7000: down$" "$T/c-down"
	grep -Eq "^/pvfs iod3 io2:7001: down$" "$T/c-down"
	hon client pvfs-counters -P >"$T/p-down" 2>/dev/null && exit 1
	grep -q "^pvfs_up{fs=\"/pvfs\",daemon=\"iod2\"} 0$" "$T/p-down"
	grep -q "^pvfs_up{fs=\"/pvfs\",daemon=\"iod0\"} 1$" "$T/p-down"'
t "io2 down: a new copy fails naming an iod, its last line FAILED" '
	start=$(date +%s)
	hon client su alice -c "pvfs-cp --progress /var/tmp/big /pvfs/home/alice/new" \
		2>"$T/cp-down" && exit 1
	echo "took $(($(date +%s) - start)) s"
	tr "\r" "\n" <"$T/cp-down" | grep -v "^\$" >"$T/cp-down.lines"
	cat "$T/cp-down.lines"
	grep -Eq "\\(iod [23], io2:700[01]\\)" "$T/cp-down.lines"
	tail -n 1 "$T/cp-down.lines" | grep -q "FAILED"'
# The names and attributes come from the mgr alone; a file's size needs
# every iod, so pvfs-ls -l prints ? for it (as GNU ls does for a field it
# cannot get), names the iod once and exits 1.
t "io2 down: pvfs-ls lists the names (no size needed), exit 0" '
	hon client pvfs-ls /pvfs/home/alice >"$T/ls-down"
	grep -qx big "$T/ls-down"'
t "io2 down: pvfs-ls -l shows ? for the size, names the iod once, exit 1" '
	rc=0
	hon client pvfs-ls -l /pvfs/home/alice >"$T/ls-down" 2>"$T/ls-down.err" || rc=$?
	cat "$T/ls-down" "$T/ls-down.err"
	grep -q "^-.* alice .* ? .* big$" "$T/ls-down"
	grep -q "iod [23]" "$T/ls-down.err"
	[ "$(wc -l <"$T/ls-down.err")" = 1 ]
	[ $rc = 1 ]'
ip -n "$NETNS_TAG-io2" link set eth0 up
t "io2 back: pvfs-ping all ok again, the 300 MB read back the same" '
	for i in $(seq 30); do
		hon client pvfs-ping >"$T/ping-back" 2>&1 && break
		sleep 0.5
	done
	cat "$T/ping-back"
	[ "$(grep -c "^iod [0-3] io[12]:700[01]: ok" "$T/ping-back")" -eq 4 ]
	sum=$(hon client su alice -c "pvfs-cp /pvfs/home/alice/big -" | sha256sum)
	[ "${sum%% *}" = "$SUM" ]
	hon client pvfs-counters >/dev/null
	hon client pvfs-ls /pvfs/home/alice >/dev/null'

# ---- a wrong key on iod 3 ----
stop_unit() {
	local pid
	pid=$(cat "$T/run/$1.pid")
	kill -TERM "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
}
export -f stop_unit unit
stop_unit io2-pvfs-iod@3
# The other key is made as the first was, on the mgr, and copied.
hon mgr pvfs-mgr --make-key /var/tmp/other-secret >/dev/null
hon io2 sh -c "cp '$MGRROOT/var/tmp/other-secret' /etc/pvfs/other-secret &&
	chgrp pvfs /etc/pvfs/other-secret && chmod 0640 /etc/pvfs/other-secret &&
	sed -i 's|-k /etc/pvfs/secret|-k /etc/pvfs/other-secret|' /etc/pvfs/iod-3.conf"

unit io2 "$T/h/io2/root/lib/systemd/system/pvfs-iod@.service" 3
listening io2 7001
t "iod 3 with another key: pvfs-ping names it, the mgr's view says the key differs" '
	for i in $(seq 30); do
		hon client pvfs-ping >"$T/ping-key" 2>&1 || true
		grep -q "^iod 3 .*key differs" "$T/ping-key" && break
		sleep 0.5
	done
	cat "$T/ping-key"
	hon client pvfs-ping >/dev/null 2>&1 && { echo "pvfs-ping: exit 0"; exit 1; }
	grep -q "^iod 3 io2:7001: .*key differs from the mgr" "$T/ping-key"
	grep -q "^iod [012] .*key differs" "$T/ping-key" && exit 1
	grep "iod 3 (io2:7001): .*key" "$T/run/mgr-pvfs-mgr.log"'

finish
