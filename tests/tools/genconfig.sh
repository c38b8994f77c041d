#!/bin/sh
# genconfig.sh - pvfs-genconfig's files make a working file system: three
# iods (two on one "host", i.e. two ports of 127.0.0.1), the daemons
# started with the command lines of the built systemd units and the
# generated defaults files, the directories made and labelled by the
# commands it printed, a client on the generated pvfstab copying a file in
# and out.  Also: it refuses to overwrite, --force keeps the key and the
# file system id, and the munge mode asks for MUNGE on both sides.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"

G=$T/gen
PIDS=""
gen_cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	lib_cleanup
}
trap gen_cleanup EXIT

# Four free ports (held together while they are picked).
set -- $(python3 -c '
import socket
s = [socket.socket() for _ in range(4)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
MP=$1 P0=$2 P1=$3 P2=$4

gen() {
	pvfs-genconfig --confdir "$G" --meta-dir "$T/meta" --data-dir "$T/data-%i" \
		--prefix /gen "$@"
}
check "generate: mgr, three iods, auth trust" gen --auth trust \
	--mgr "127.0.0.1:$MP" --iod "127.0.0.1:$P0,127.0.0.1:$P1" --iod "127.0.0.1:$P2"
cp "$T/out" "$T/printed"
for f in secret iodtab mgr.conf iod-0.conf iod-1.conf iod-2.conf pvfstab; do
	check "generate: $f written" test -s "$G/$f"
done
check_out "generate: the key is mode 600" "600" stat -c %a "$G/secret"
check_out "generate: the iodtab in order" "127.0.0.1:$P0
127.0.0.1:$P1
127.0.0.1:$P2" grep -v '^#' "$G/iodtab"
fsid=$(sed -n 's/.*--fsid \([0-9a-f]*\).*/\1/p' "$G/mgr.conf")
check "generate: mgr.conf has a 16-digit fsid" test ${#fsid} = 16
check_out "generate: iod 1's defaults" \
	"PVFS_IOD_ARGS=\"-l 0.0.0.0:$P1 -d $T/data-1 -k $G/secret --fsid $fsid --index 1\"" \
	grep -v '^#' "$G/iod-1.conf"
check_out "generate: the pvfstab" "127.0.0.1:$T/meta  /gen  pvfs  port=$MP  0 0" \
	grep -v '^#' "$G/pvfstab"
check_grep "generate: says what goes to 127.0.0.1" \
	"systemctl enable --now pvfs-iod@0 pvfs-iod@1 pvfs-iod@2 pvfs-mgr" cat "$T/printed"

check_out "--version" "pvfs-genconfig $(sed -n 's/^#define PVFS_VERSION_STRING "\(.*\)"/\1/p' \
	"${PVFS_SRCDIR:-.}/include/pvfs.h")" pvfs-genconfig --version

# ---- refusals ----
cp "$G/secret" "$T/secret.first"
check_err "existing files: refused" 1 "$G/secret exists; --force replaces" \
	gen --mgr "127.0.0.1:$MP" --iod "127.0.0.1:$P0"
check_out "refused: nothing changed" "3" sh -c "grep -vc '^#' '$G/iodtab'"
check_err "the same iod twice: usage error" 2 "--iod 127.0.0.1:$P0 given twice" \
	gen --force --mgr "127.0.0.1:$MP" --iod "127.0.0.1:$P0" --iod "127.0.0.1:$P0"
check_err "two iods on a host, one data directory: usage error" 2 "needs %i" \
	pvfs-genconfig --confdir "$G" --data-dir /srv/d --force \
	--mgr h --iod "127.0.0.1:$P0" --iod "127.0.0.1:$P1"
check_err "a bad port: usage error" 2 "--iod: HOST[:PORT], not 'h:70000'" \
	gen --force --mgr h --iod h:70000
check_err "a bad host: usage error" 2 "--mgr: HOST[:PORT], not 'a b'" \
	pvfs-genconfig --out "$T/bad" --mgr "a b" --iod h
check "a usage error writes nothing" test ! -e "$T/bad"
check_err "a bad auth: usage error" 2 "--auth: munge, nobody or trust" \
	gen --force --auth none --mgr h --iod h

# ---- munge mode, into another directory ----
check "munge: generate" pvfs-genconfig --out "$T/m" --confdir /etc/pvfs \
	--mgr mgrhost --iod io1 --iod io2
check_grep "munge: the mgr runs with --munge and the conf paths" \
	'^PVFS_MGR_ARGS="-l 0.0.0.0:3000 -d /[^ ]*/lib/pvfs/meta -t /etc/pvfs/iodtab -k /etc/pvfs/secret --fsid [0-9a-f]{16} --munge"$' \
	cat "$T/m/mgr.conf"
check_grep "munge: the clients ask for it" '^mgrhost:/[^ ]*/meta  /pvfs  pvfs  port=3000,auth=munge  0 0$' \
	cat "$T/m/pvfstab"
check_grep "munge: one iod per host uses the plain data directory" \
	' -d /[^ ]*/lib/pvfs/data -k ' cat "$T/m/iod-1.conf"
check_grep "munge: says how to set munged up" "same /etc/munge/munge.key" \
	pvfs-genconfig --out "$T/m2" --mgr a --iod b

# ---- --force keeps the key and the fsid ----
check "--force: rewrite" gen --force --auth trust \
	--mgr "127.0.0.1:$MP" --iod "127.0.0.1:$P0,127.0.0.1:$P1" --iod "127.0.0.1:$P2"
check "--force: the key kept" cmp "$G/secret" "$T/secret.first"
check_grep "--force: the fsid kept" "--fsid $fsid" cat "$G/mgr.conf"

# ---- a cluster from the files ----
# The printed preparation commands (install -d, pvfs-iod --format), run
# as printed but as this user when the pvfs user exists.
grep -E '^  (install -d|(runuser -u pvfs -- )?pvfs-iod --format)' "$T/printed" |
	sed -e 's/^  //' -e 's/^runuser -u pvfs -- //' -e 's/ -o pvfs -g pvfs//' >"$T/prep"
check_out "printed: 4 directories, 3 labels" "7" sh -c "wc -l <'$T/prep'"
check "printed: the commands run" sh -e "$T/prep"

# unit NAME VARFILE: the command line of the built unit NAME with the
# defaults file's variable, expanded as systemd does ($VAR: split on blanks).
unit_cmd() {
	set -- $(unit_line "$B/$1" "$2")
	bin=$1
	shift
	echo "$B/$(basename "$bin") $*"
}
check_grep "unit: pvfs-iod@ starts pvfs-iod -f with the defaults" \
	"^$B/pvfs-iod -f -l 0.0.0.0:$P2 -d $T/data-2 -k $G/secret --fsid $fsid --index 2\$" \
	unit_cmd pvfs-iod@.service "$G/iod-2.conf"
mkdir -p "$T/run"
for i in 0 1 2; do
	$(unit_cmd pvfs-iod@.service "$G/iod-$i.conf") --port-file "$T/run/iod$i.port" \
		>"$T/run/iod$i.log" 2>&1 &
	PIDS="$PIDS $!"
done
# The iods first, as the printed steps do: the mgr checks them at its
# start (then every 10 s).
for f in iod0 iod1 iod2; do wait_port cluster $f; done
$(unit_cmd pvfs-mgr.service "$G/mgr.conf") --port-file "$T/run/mgr.port" \
	>"$T/run/mgr.log" 2>&1 &
PIDS="$PIDS $!"
wait_port cluster mgr

PVFSTAB_FILE=$G/pvfstab
export PVFSTAB_FILE
check "cluster: pvfs-ping says all is well" pvfs-ping
check_grep "cluster: the mgr sees 3 iods" "ok, protocol [0-9]+, fsid $fsid, .* 3 iods" pvfs-ping
mkrand "$T/in" 3000000
check "cluster: copy in" pvfs-cp "$T/in" /gen/file
check "cluster: copy out" pvfs-cp /gen/file "$T/back"
same "cluster: the same bytes" "$T/in" "$T/back"
check_grep "cluster: striped over the 3 iods" "3000000" pvfs-ls -l /gen
if [ "$FAIL" -ne 0 ]; then
	for f in "$T"/run/*.log; do echo "# --- $f"; tail -n 10 "$f"; done
fi
finish
