#!/bin/sh
# attrs.sh - pvfs-chmod (octal, symbolic, -R), pvfs-chown (OWNER:GROUP,
# :GROUP, OWNER:, -R) and pvfs-truncate (-s, +/-, -c, content kept).
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster
mkrand "$T/f" 100000
pvfs-cp "$T/f" /pvfs/f && pvfs-mkdir -p /pvfs/d/e && pvfs-cp "$T/f" /pvfs/d/e/g || exit 1
mode() { pvfs-stat "$1" | sed -n 's/^  Mode: \([0-7]*\) .*/\1/p'; }
ids() { pvfs-stat "$1" | sed -n 's/^  Mode: .*Uid: \([0-9]*\) .*Gid: \([0-9]*\) .*/\1:\2/p'; }

check_quiet "chmod 600" pvfs-chmod 600 /pvfs/f
check_out "chmod 600: mode" "0600" mode /pvfs/f
check_quiet "chmod u+x" pvfs-chmod u+x /pvfs/f
check_out "chmod u+x: mode" "0700" mode /pvfs/f
check_quiet "chmod go+r,u-w" pvfs-chmod go+r,u-w /pvfs/f
check_out "chmod go+r,u-w: mode" "0544" mode /pvfs/f
check_quiet "chmod a=rw" pvfs-chmod a=rw /pvfs/f
check_out "chmod a=rw: mode" "0666" mode /pvfs/f
check_quiet "chmod +x (umask applies)" pvfs-chmod +x /pvfs/f
check_out "chmod +x: mode" "0777" mode /pvfs/f
check_quiet "chmod 4755 (setuid)" pvfs-chmod 4755 /pvfs/f
check_grep "chmod 4755: ls shows s" '^-rwsr-xr-x ' pvfs-ls -l /pvfs/f
check_quiet "chmod -R 750" pvfs-chmod -R 750 /pvfs/d
check_out "chmod -R: every level" "0750 0750 0750" sh -c 'echo $(for p in /pvfs/d /pvfs/d/e /pvfs/d/e/g; do pvfs-stat $p | sed -n "s/^  Mode: \([0-7]*\) .*/\1/p"; done)'
check_quiet "chmod -R a-x,a+X" pvfs-chmod -R a-x,a+X /pvfs/d
check_out "chmod a-x,a+X: x for directories only" "0751 0640" sh -c 'echo $(for p in /pvfs/d/e /pvfs/d/e/g; do pvfs-stat $p | sed -n "s/^  Mode: \([0-7]*\) .*/\1/p"; done)'
check_fail "chmod: bad mode" 2 "pvfs-chmod: invalid mode: 'u+q'" pvfs-chmod u+q /pvfs/f
check_fail "chmod: missing file" 1 "pvfs-chmod: /pvfs/nope: No such file or directory" pvfs-chmod 644 /pvfs/nope
check_fail "chmod: no file" 2 "pvfs-chmod: missing operand after '644'" pvfs-chmod 644

check_quiet "chown 1234:5678" pvfs-chown 1234:5678 /pvfs/f
check_out "chown: both set" "1234:5678" ids /pvfs/f
check_grep "ls -l shows numbers for unknown ids" '^-rw.* 1234 5678 100000 ' pvfs-ls -l /pvfs/f
check_quiet "chown :99 (group only)" pvfs-chown :99 /pvfs/f
check_out "chown :99" "1234:99" ids /pvfs/f
check_quiet "chown root (owner only)" pvfs-chown root /pvfs/f
check_out "chown root" "0:99" ids /pvfs/f
check_quiet "chown 42: (owner and its login group)" pvfs-chown daemon: /pvfs/f
check_out "chown daemon:" "$(id -u daemon):$(id -g daemon)" ids /pvfs/f
check_quiet "chown -R" pvfs-chown -R 7:8 /pvfs/d
check_out "chown -R: every level" "7:8 7:8 7:8" sh -c 'echo $(for p in /pvfs/d /pvfs/d/e /pvfs/d/e/g; do pvfs-stat $p | sed -n "s/^  Mode: .*Uid: \([0-9]*\) .*Gid: \([0-9]*\) .*/\1:\2/p"; done)'
check_fail "chown: unknown user" 2 "pvfs-chown: invalid user: 'no-such-user-x'" pvfs-chown no-such-user-x /pvfs/f
check_fail "chown: unknown group" 2 "pvfs-chown: invalid group: 'no-such-group-x'" pvfs-chown :no-such-group-x /pvfs/f
check_fail "chown: missing file" 1 "pvfs-chown: /pvfs/nope: No such file or directory" pvfs-chown 1:1 /pvfs/nope

size() { pvfs-stat "$1" | sed -n 's/^  Size: \([0-9]*\).*/\1/p'; }
check_quiet "truncate -s 1M (grow)" pvfs-truncate -s 1M /pvfs/f
check_out "truncate: 1048576" "1048576" size /pvfs/f
head -c 948576 /dev/zero >"$T/zero"
check "truncate: old bytes kept" sh -c "pvfs-cp /pvfs/f - | head -c 100000 | cmp - '$T/f'"
check "truncate: new bytes are zeros" sh -c "pvfs-cp /pvfs/f - | tail -c 948576 | cmp - '$T/zero'"
check_quiet "truncate -s +1K" pvfs-truncate -s +1K /pvfs/f
check_out "truncate +1K" "1049600" size /pvfs/f
check_quiet "truncate -s -1049500" pvfs-truncate -s -1049500 /pvfs/f
check_out "truncate -1049500" "100" size /pvfs/f
check "truncate: shrunk content is the prefix" sh -c "pvfs-cp /pvfs/f - | cmp - '$T/f' 2>&1 | grep -q EOF"
check_quiet "truncate -s 0" pvfs-truncate -s 0 /pvfs/f
check_out "truncate 0" "0" size /pvfs/f
check_quiet "truncate: a missing file is created" pvfs-truncate -s 5000 /pvfs/new
check_out "truncate: created with the size" "5000" size /pvfs/new
check_quiet "truncate -c: a missing file is not created" pvfs-truncate -c -s 1 /pvfs/new2
check_fail "truncate -c: not there" 1 "pvfs-ls: /pvfs/new2: No such file or directory" pvfs-ls /pvfs/new2
check_quiet "truncate -s 5G (sparse, past 4 GiB)" pvfs-truncate -s 5G /pvfs/new
check_out "truncate 5G" "5368709120" size /pvfs/new
check_fail "truncate: a directory" 1 "pvfs-truncate: /pvfs/d: Is a directory" pvfs-truncate -s 0 /pvfs/d
check_fail "truncate: no -s" 2 "pvfs-truncate: you must specify '-s SIZE'" pvfs-truncate /pvfs/f
check_fail "truncate: bad size" 2 "pvfs-truncate: invalid size: '12Q'" pvfs-truncate -s 12Q /pvfs/f
finish
