#!/bin/bash
# ab.sh OLD_BUILD NEW_BUILD [ROUNDS]: the same pvfs-bench cases on a
# pvfs-local file system of each build (its own daemons and client),
# alternating old and new, ROUNDS times; prints each RESULT line tagged.
# AB_TCP=1: the iods over TCP only (their Unix sockets are unlinked after
# the start, so clients fall back to TCP as from another host; the mgr
# stays on its socket).  AB_CASES: the cases, ';'-separated.
set -u
old=$1 new=$2 rounds=${3:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/ab.XXXXXX")
trap '"$old/pvfs-local" stop "$T/old" >/dev/null 2>&1; "$new/pvfs-local" stop "$T/new" >/dev/null 2>&1; rm -rf "$T"' EXIT
"$old/pvfs-local" start "$T/old" --iods 4 >/dev/null || exit 1
"$new/pvfs-local" start "$T/new" --iods 4 >/dev/null || exit 1
if [ "${AB_TCP:-0}" = 1 ]; then
	rm -f "$T"/old/run/iod*.sock "$T"/new/run/iod*.sock
fi
cases=("data -c 1 -s 512M -b 1M -S 64K" "data -c 4 -s 256M -b 1M -S 64K"
	"data -c 1 -s 32M -b 4K -S 64K" "meta -c 1 -n 3000" "meta -c 4 -n 3000")
if [ -n "${AB_CASES:-}" ]; then
	IFS=';' read -r -a cases <<<"$AB_CASES"
fi
for r in $(seq "$rounds"); do
	for c in "${cases[@]}"; do
		for w in old new; do
			b=${!w}
			PVFSTAB_FILE=$T/$w/pvfstab "$b/pvfs-bench" $c 2>&1 | grep '^RESULT' | sed "s|^|$w r$r [$c] |"
		done
	done
done
