#!/bin/sh
# man.sh - the man pages' examples match real output: the protocol version
# pvfs-ping.1 shows is the one the daemons answer, the example lines of
# pvfs-ping, pvfs-df and pvfs-du have the shape of the real ones (same
# headers), and every page's version is the tools' --version.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster
M=${PVFS_SRCDIR:-.}/doc/man
version=$(sed -n 's/^#define PVFS_VERSION_STRING "\(.*\)"/\1/p' "${PVFS_SRCDIR:-.}/include/pvfs.h")
# An example as a reader sees it: roff's \- is -.
ex() {
	sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$M/$1" | sed -e 's/\\-/-/g' -e '/^\./d'
}

proto=$(pvfs-ping | sed -n 's/^mgr .*: ok, protocol \([0-9]*\),.*/\1/p')
check "ping: the daemons answer a protocol" test -n "$proto"
check_out "pvfs-ping.1: the protocol the daemons answer" "$proto" \
	sh -c "grep -o 'protocol [0-9][0-9]*' '$M/pvfs-ping.1' | sort -u | cut -d' ' -f2"
ex pvfs-ping.1 >"$T/ping.ex"
check_grep "pvfs-ping.1: the mgr line has the real shape" \
	'^mgr [0-9.]+:[0-9]+: ok, protocol [0-9]+, fsid [0-9a-f]{16}, up [0-9]+s, [0-9]+\.[0-9]{3} ms, [0-9]+ iods$' cat "$T/ping.ex"
check_grep "pvfs-ping.1: an iod line has the real shape" \
	'^iod [0-9]+ [0-9.]+:[0-9]+: ok, protocol [0-9]+, up [0-9]+s, [0-9.]+ ms, [0-9.]+[KMGT]? free of [0-9.]+[KMGT]?$' cat "$T/ping.ex"
for f in "$M"/*.[13578]; do
	check_grep "$(basename "$f"): version $version" "^\.TH .* \"PVFS $version\"" cat "$f"
done

ex pvfs-df.1 >"$T/df.ex"
for opt in "" "-i"; do
	pvfs-df $opt | head -n 1 >"$T/hdr"
	check_out "pvfs-df.1: the header of pvfs-df $opt as printed" "1" grep -cxF -f "$T/hdr" "$T/df.ex"
done
check_out "pvfs-df.1: total lines of the real shape" "2" \
	grep -cE '^[0-9.]+:[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+% /pvfs$' "$T/df.ex"
check_out "pvfs-df.1: iod lines of the real shape" "8" \
	grep -cE '^  iod [0-9]+ [0-9.]+:[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+% (\(disk of iod 0\))?$' "$T/df.ex"
# The example's figures add up as pvfs-df's do.
check "pvfs-df.1: Used = the iods' sum" sh -c \
	"sed -n '/^\\\$ pvfs-df\$/,/^\\\$/p' '$T/df.ex' | awk '/^127/ {t=\$3} /^  iod/ {s+=\$5} END {exit t != s}'"

ex pvfs-du.1 >"$T/du.ex"
check_out "pvfs-du.1: lines are SIZE<tab>PATH" "0" sh -c "grep -v '^\\$ ' '$T/du.ex' | grep -cvE '^[0-9.]+[KMG]?	(/pvfs[^	]*|total)\$'; true"
check "pvfs-du.1: the -c total adds up" sh -c "sed -n '/-sbc/,\$p' '$T/du.ex' | awk -F'\t' 'NR > 1 && \$2 != \"total\" {s+=\$1} \$2 == \"total\" {t=\$1} END {exit t != s}'"
finish
