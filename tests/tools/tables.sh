#!/bin/sh
# tables.sh - tables fail closed (doc/configuration.md): every malformed
# pvfstab line is an error naming file and line that every tool prints;
# no pvfstab means no guessing (nothing is written to a local path); the
# mgr starts only on an iod table it fully validated.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"

start_cluster 2 --anonymous trust
GOOD=$(cat "$PVFSTAB_FILE")
L=$T/local
mkdir "$L"
mkrand "$T/f" 1000
TAB=$T/tab

# A prefix under $L: a tool that fell back to the local file system would
# write there.  bad_tab NAME 'line' 'why': each tool refuses, naming line 2.
bad_tab() {
	{ echo "# first line"; printf '%s\n' "$2"; } >"$TAB"
	check_err "pvfstab $1: pvfs-cp names file and line" 1 \
		"pvfs-cp: $TAB:2: $3" env PVFSTAB_FILE="$TAB" pvfs-cp "$T/f" "$L/x"
	check "pvfstab $1: nothing written locally" test ! -e "$L/x"
}
M=$(echo "$GOOD" | awk '{print $1}')
O=$(echo "$GOOD" | awk '{print $4}')
bad_tab "port=abc" "$M $L pvfs port=abc" "bad port"
bad_tab "missing field" "$M $L" "want: mgrhost:/meta-dir /prefix pvfs [options]"
bad_tab "no host" "/meta $L pvfs $O" "first field must be mgrhost:/meta-dir"
bad_tab "relative prefix" "$M local pvfs $O" "mount prefix must be an absolute path"
bad_tab "type" "$M $L nfs $O" "file system type must be pvfs"
bad_tab "unknown option" "$M $L pvfs $O,prot=1" "unknown option"
bad_tab "bad timeout" "$M $L pvfs $O,timeout=x" "bad timeout"
bad_tab "too many fields" "$M $L pvfs $O 0 0 0" "too many fields"
bad_tab "bad host" "h\$t:/m $L pvfs $O" "bad mgr host name"
bad_tab "control bytes" "$(printf '\001\002') $L pvfs" "control characters: not a text file"
{ echo "$M $L pvfs $O"; printf 'x\000y\n'; } >"$TAB"
check_err "pvfstab with a NUL byte: refused" 1 "pvfs-cp: $TAB:2: NUL byte" \
	env PVFSTAB_FILE="$TAB" pvfs-cp "$T/f" "$L/x"
head -c 3000 /dev/urandom >"$TAB"
check_err "binary pvfstab: refused" 1 "pvfs-ls: $TAB:" env PVFSTAB_FILE="$TAB" pvfs-ls "$L"
{ echo "# c"; echo "$M $L pvfs port=abc"; } >"$TAB"
for tool in pvfs-ls pvfs-stat pvfs-rm pvfs-mkdir pvfs-rmdir pvfs-chmod \
    pvfs-truncate pvfs-df pvfs-ping; do
	case $tool in
	pvfs-chmod) args="600 $L/x" ;;
	pvfs-truncate) args="-s 0 $L/x" ;;
	pvfs-df | pvfs-ping) args= ;;
	*) args="$L/x" ;;
	esac
	# shellcheck disable=SC2086
	check_err "$tool prints the pvfstab's error" 1 "$tool: $TAB:2: bad port" \
		env PVFSTAB_FILE="$TAB" $tool $args
done
check_err "pvfs-mv prints it too" 1 "pvfs-mv: $TAB:2: bad port" \
	env PVFSTAB_FILE="$TAB" pvfs-mv "$T/f" "$L/y"
check "pvfs-mv: source kept, nothing moved" sh -c "[ -e '$T/f' ] && [ ! -e '$L/y' ]"

# ---- no pvfstab at all ----
check_err "no pvfstab: cp to a plain path refused, files tried named" 1 \
	"pvfs-cp: $L/x: no pvfstab (tried $T/none from \$PVFSTAB_FILE)" \
	env PVFSTAB_FILE="$T/none" pvfs-cp "$T/f" "$L/x"
check "no pvfstab: nothing written locally" test ! -e "$L/x"
check_err "no pvfstab: mv refused" 1 "pvfs-mv: " \
	env PVFSTAB_FILE="$T/none" pvfs-mv "$T/f" "$L/y"
check "no pvfstab: nothing moved" sh -c "[ -e '$T/f' ] && [ ! -e '$L/y' ]"
check_quiet "no pvfstab: a plain path next to a URL is local" \
	env PVFSTAB_FILE="$T/none" pvfs-cp "$T/f" "$URL/z"

# ---- the mgr's iod table ----
D=$T/m
mkdir -m 700 "$D"
pvfs-mgr --make-key "$D/secret"
bad_iodtab() {
	printf '%b' "$2" >"$D/iodtab"
	check_err "iodtab $1: mgr refuses" 1 "$D/iodtab:$3" \
		timeout 10 pvfs-mgr -f -d "$D" -l 127.0.0.1:0
}
bad_iodtab "duplicate" '127.0.0.1:7000\n127.0.0.1:7000\n' \
	"2: duplicate of iod 0 (127.0.0.1:7000)"
bad_iodtab "same iod by two names" '127.0.0.1:7000\nlocalhost:7000\n' \
	"2: localhost is 127.0.0.1, as iod 0"
bad_iodtab "same socket twice" '127.0.0.1:1 unix=/s\n127.0.0.1:2 unix=/s\n' "2: duplicate"
bad_iodtab "name that does not resolve" '127.0.0.1:7000\nno-such-host.invalid:7001\n' \
	"2: no-such-host.invalid: name does not resolve"
bad_iodtab "bad port" '127.0.0.1:x\n' "1: bad host:port"
bad_iodtab "port 0" '127.0.0.1:0\n' "1: bad host:port"
bad_iodtab "extra field" '127.0.0.1:1 unix=/s more\n' "1: want one host:port"
bad_iodtab "bad unix=" '127.0.0.1:1 sock=/s\n' "1: bad unix=PATH"
bad_iodtab "bad host" 'h\$t:1\n' "1: bad host name"
bad_iodtab "control bytes" '127.0.0.1:1\n\001\002:3\n' "2: control characters"
bad_iodtab "NUL byte" '127.0.0.1:1\n\000\n' "2: NUL byte"
bad_iodtab "empty" '# none\n' " no iods"
head -c 3000 /dev/urandom >"$D/iodtab"
check_err "iodtab of 3000 random bytes: mgr refuses" 1 "$D/iodtab:" \
	timeout 10 pvfs-mgr -f -d "$D" -l 127.0.0.1:0
finish
