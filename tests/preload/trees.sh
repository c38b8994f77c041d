#!/bin/bash
# trees.sh - whole trees (symbolic and hard links among the files) in and out of
# /pvfs with rsync, cp -a, tar and git through libpvfs-preload.so,
# compared with diff -r --no-dereference and with find's type, link count and link target
# of every entry; and the *at calls
# that reach the prefix from a local directory descriptor (rsync 3.2+
# walks "/" then "pvfs" with openat and fstatat).
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/lib.sh"

for p in rsync git python3; do
	command -v $p >/dev/null || { echo "SKIP: no $p"; exit 77; }
done

# A tree of the shapes the tools must keep: nested directories, empty
# ones, an empty file, a large one, odd names, modes.
mk_tree() {
	mkdir -p "$1/d1/d2/d3" "$1/empty" "$1/sp ace"
	printf 'a\n' >"$1/a"
	: >"$1/zero"
	head -c 3000000 /dev/urandom >"$1/d1/big"
	printf 'x\n' >"$1/d1/d2/d3/deep"
	printf 'y\n' >"$1/sp ace/f"
	printf '#!/bin/sh\n' >"$1/exe" && chmod 755 "$1/exe"
	printf 'p\n' >"$1/private" && chmod 600 "$1/private"
	# Symbolic links: to a file, to a directory, through "..", dangling,
	# absolute out of the tree, and a link to a link.
	ln -s a "$1/la"
	ln -s d1/d2 "$1/ld"
	ln -s ../../a "$1/d1/d2/up"
	ln -s nowhere "$1/dangling"
	ln -s /etc/hostname "$1/abs"
	ln -s la "$1/lla"
	# Hard links: two names in one directory, one in another, and a
	# hard link to a symbolic link.
	ln "$1/a" "$1/a2"
	ln "$1/a" "$1/d1/a3"
	ln "$1/la" "$1/la2"
}
mk_tree "$L/src"

# What diff -r --no-dereference does not see: each entry's type, link count, link target
# and mode, by relative path.
shape() {
	(cd "$1" && find . -printf '%P %y %n %l %m\n' | sort)
}
export -f shape

t "rsync -aH a local tree into /pvfs, diff -r and find agree" '
	rsync -aH "$L/src/" /pvfs/rs
	diff -r --no-dereference "$L/src" /pvfs/rs
	[ "$(shape "$L/src")" = "$(shape /pvfs/rs)" ]'
t "rsync -aH again transfers nothing" '
	[ -z "$(rsync -aH --itemize-changes "$L/src/" /pvfs/rs)" ]'
t "rsync -aH --delete a changed tree into /pvfs" '
	cp -a "$L/src" "$L/src2"
	rm "$L/src2/a" && printf "b\n" >"$L/src2/new" && rm -r "$L/src2/d1/d2"
	rsync -aH --delete "$L/src2/" /pvfs/rs
	diff -r --no-dereference "$L/src2" /pvfs/rs
	[ "$(shape "$L/src2")" = "$(shape /pvfs/rs)" ]'
t "rsync -aH out of /pvfs into a local tree" '
	rsync -aH /pvfs/rs/ "$L/back"
	diff -r --no-dereference "$L/src2" "$L/back"
	[ "$(shape "$L/src2")" = "$(shape "$L/back")" ]'
t "cp -a a tree in and out" '
	cp -a "$L/src" /pvfs/cpa && cp -a /pvfs/cpa "$L/cpa"
	diff -r --no-dereference "$L/src" /pvfs/cpa && diff -r --no-dereference "$L/src" "$L/cpa"
	[ "$(shape "$L/src")" = "$(shape /pvfs/cpa)" ]
	[ "$(shape "$L/src")" = "$(shape "$L/cpa")" ]'
t "tar round trip keeps the shape" '
	tar cf - -C "$L/src" . | (mkdir /pvfs/tx && tar xf - -C /pvfs/tx)
	tar cf - -C /pvfs/tx . | (mkdir "$L/tx" && tar xf - -C "$L/tx")
	[ "$(shape "$L/src")" = "$(shape /pvfs/tx)" ]
	[ "$(shape "$L/src")" = "$(shape "$L/tx")" ]'
t "git init, commit, clone and fsck in /pvfs" '
	export GIT_CONFIG_NOSYSTEM=1 HOME="$L"
	git config --global user.email t@example.org
	git config --global user.name t
	git config --global init.defaultBranch main
	cp -a "$L/src" /pvfs/repo && cd /pvfs/repo
	git init -q && git add -A && git commit -qm one
	printf "more\n" >>a && git commit -qam two
	git fsck --strict 2>&1
	git clone -q /pvfs/repo "$L/clone" && cd "$L/clone"
	[ "$(git log --format=%s | tr "\n" " ")" = "two one " ]
	diff -r --no-dereference --exclude=.git --exclude=empty /pvfs/repo "$L/clone"
	git clone -q "$L/clone" /pvfs/clone2 && cd /pvfs/clone2 && git fsck --strict 2>&1
	diff -r --no-dereference --exclude=.git --exclude=empty /pvfs/repo /pvfs/clone2'

# *at calls on a local directory descriptor or a local cwd whose path
# leads under the prefix.
cat >"$L/at.py" <<'PY'
import os
root = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
pfx = os.environ["PFX"].lstrip("/")
os.mkdir(pfx + "/at", dir_fd=root)
fd = os.open(pfx + "/at/f", os.O_WRONLY | os.O_CREAT, 0o640, dir_fd=root)
os.write(fd, b"at\n")
os.close(fd)
st = os.stat(pfx + "/at/f", dir_fd=root)
assert st.st_size == 3 and st.st_mode & 0o777 == 0o640, st
assert os.stat(pfx + "/at/f", dir_fd=root, follow_symlinks=False).st_ino == st.st_ino
o = os.open(pfx, os.O_RDONLY | os.O_DIRECTORY | os.O_PATH | os.O_NOFOLLOW, dir_fd=root)
assert os.stat("at/f", dir_fd=o).st_ino == st.st_ino
os.rename(pfx + "/at/f", pfx + "/at/g", src_dir_fd=root, dst_dir_fd=root)
assert os.listdir("/" + pfx + "/at") == ["g"]
os.chdir("/")
with open(pfx + "/at/g") as f:
    assert f.read() == "at\n"
os.unlink(pfx + "/at/g", dir_fd=root)
os.rmdir(pfx + "/at", dir_fd=root)
assert not os.path.exists("/" + pfx + "/at")
# A local path that only looks like it (no prefix under it) stays local.
os.chdir(os.environ["L"])
os.mkdir("pvfs")
assert os.path.isdir(os.environ["L"] + "/pvfs")
print("at ok")
PY
t "openat/fstatat/renameat/unlinkat from a local / descriptor and cwd" 'PFX=/pvfs python3 at.py'

finish
