#!/bin/sh
# run.sh SECONDS - build every libFuzzer target with clang and run each for
# SECONDS on the seed corpus (tests/fuzz/corpus).  Exit 77 (skip) without
# clang's fuzzer runtime; non-zero on any crash, leak or failed oracle.
set -eu
secs=${1:-10}
src=${PVFS_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
out=${PVFS_FUZZ_DIR:-$(mktemp -d /tmp/pvfs-fuzz.XXXXXX)}
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null || { echo "SKIP: no clang"; exit 77; }
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -I$src/include -I$src/src/common"
# The daemons' library (libpvfs-daemon: dconn.c, dsignal.c, counters.c)
# needs libev and no target uses it.
common=$(ls "$src"/src/common/*.c | grep -v -e '/dconn\.c$' -e '/dsignal\.c$' -e '/counters\.c$')
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' \
	> "$out/probe.c"
"$CLANG" $flags "$out/probe.c" -o "$out/probe" 2>/dev/null ||
	{ echo "SKIP: clang has no libFuzzer runtime (apt-get install clang)"; exit 77; }
pass=0 fail=0
for t in frame config pattern journal; do
	extra=""
	[ "$t" = journal ] && extra="-I$src/src/mgr $src/src/mgr/mgr-record.c"
	"$CLANG" $flags "$src/tests/fuzz/fuzz_$t.c" $common $extra -o "$out/fuzz_$t"
	mkdir -p "$out/corpus-$t"
	if "$out/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/crash-$t-" "$out/corpus-$t" \
		"$src/tests/fuzz/corpus/$t" >"$out/fuzz_$t.log" 2>&1; then
		echo "ok: fuzz_$t $(grep -o 'Done [0-9]* runs' "$out/fuzz_$t.log")"
		pass=$((pass + 1))
	else
		echo "FAIL: fuzz_$t (log and crash input in $out)"
		tail -30 "$out/fuzz_$t.log"
		fail=$((fail + 1))
	fi
done
[ "$fail" = 0 ] && [ -z "${PVFS_FUZZ_DIR:-}" ] && rm -rf "$out"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
