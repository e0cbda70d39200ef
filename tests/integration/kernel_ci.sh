#!/bin/sh
# The kernel-ci step on Debian's linux-source: tinyconfig for x86_64 built
# out of tree and booted under QEMU (no KVM) into a busybox initramfs.  The
# four cases of issue 21, all on one base build (its object tree lives in
# PR_CACHE, so the next run and the sanitizer build reuse it too):
# - a patch that does not apply: FAIL naming it, nothing built;
# - a good patch: PASS, with the boot marker and each stage's time;
# - a patch that breaks the build: FAIL quoting gcc's error;
# - a patch whose initcall panics: FAIL quoting the panic line.
# Each case's wall time is printed; the whole test's is in meson's log.
set -u
. "$PR_SRC/tests/integration/kernel_tree.sh"
for tool in qemu-system-x86_64 make gcc flex bison bc cpio; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "skip: no $tool"
		exit 77
	}
done
[ -x /bin/busybox ] || {
	echo "skip: no /bin/busybox (busybox-static)"
	exit 77
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
t0=$(date +%s)

# The kernel tree as a git repository (bare: worktrees are made from it),
# made once from the extracted tree, under a lock as kernel_tree.sh does.
G="$C/linux.git"
(
	flock 9
	if [ ! -f "$G/pr-made" ]; then
		rm -rf "$G"
		git init -q --bare "$G" &&
			git --git-dir="$G" --work-tree="$L" add -A -f -- . \
				':!.pr-extracted' &&
			GIT_AUTHOR_NAME=linux-source GIT_AUTHOR_EMAIL=root@localhost \
				GIT_COMMITTER_NAME=linux-source \
				GIT_COMMITTER_EMAIL=root@localhost \
				GIT_AUTHOR_DATE=2000-01-01T00:00:00Z \
				GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
				git --git-dir="$G" --work-tree="$L" commit -q \
				-m "Debian's linux-source" &&
			touch "$G/pr-made"
	fi
) 9>"$C/linux.git.lock" || fail "no git repository of the kernel tree"
BASE=$(git --git-dir="$G" rev-parse HEAD) || fail "no HEAD in $G"
SHORT=$(echo "$BASE" | cut -c1-12)
echo "kernel tree repository ready: $(($(date +%s) - t0)) s"

cat >"$T/kci.conf" <<EOF
[source "in"]
	type = mbox
	path = $T/in.mbox
[sink "out"]
	type = maildir
	path = $T/md
[check "kernel-ci"]
	type = kernel-ci
	kernel-tree = $G
	build-dir = $C/kernel-ci
	timeout = 50m
	boot-timeout = 5m
	progress = 60s
[route "r"]
	from = in
	step = kernel-ci
	to = out
EOF

# A mail as format-patch writes it: $1 name, $2 subject, diff on stdin.
mail() {
	{
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		printf 'From: A U Thor <author@example.org>\n'
		printf 'Date: Sat, 6 Dec 2025 00:00:00 +0000\n'
		printf 'Subject: [PATCH] %s\n\n' "$2"
		printf 'The kernel-ci test.\n\n'
		printf 'Signed-off-by: A U Thor <author@example.org>\n---\n'
		cat
		printf '\nbase-commit: %s\n-- \n2.39.5\n\n' "$BASE"
	} >"$T/$1.patch"
}

# A patch appending $2 (a file of C) to init/main.c.
append_patch() {
	git --git-dir="$G" show HEAD:init/main.c >"$T/main.c" || fail "no init/main.c"
	cat "$T/main.c" "$2" >"$T/main.new"
	{
		echo "diff --git a/init/main.c b/init/main.c"
		diff -u --label a/init/main.c --label b/init/main.c \
			"$T/main.c" "$T/main.new"
	} | mail "$1" "$3"
}

cat >"$T/good.c" <<'EOF'

static int __init kci_hello(void)
{
	pr_info("kci: hello from the patch\n");
	return 0;
}
late_initcall(kci_hello);
EOF
append_patch good "$T/good.c" "init: say hello from a late initcall"

cat >"$T/broken.c" <<'EOF'

static int __init kci_broken(void)
{
	return kci_undefined_symbol;
}
late_initcall(kci_broken);
EOF
append_patch broken "$T/broken.c" "init: use a symbol nobody defines"

cat >"$T/panic.c" <<'EOF'

static int __init kci_panic(void)
{
	panic("kci: panic from an initcall");
	return 0;
}
late_initcall(kci_panic);
EOF
append_patch panic "$T/panic.c" "init: panic in a late initcall"

mail stale "init: fix a license line that is not there" <<'EOF'
diff --git a/init/main.c b/init/main.c
--- a/init/main.c
+++ b/init/main.c
@@ -1,3 +1,3 @@
-// SPDX-License-Identifier: NOT-THE-LICENSE
+// SPDX-License-Identifier: GPL-2.0-only
 /*
  *  linux/init/main.c
  *
EOF

run() {
	start=$(date +%s)
	rc=0
	"$PATCHRELAY" check -c "$T/kci.conf" --route r "$T/$1.patch" \
		>"$T/$1.out" 2>"$T/$1.err" || rc=$?
	echo "== case $1: exit $rc, $(($(date +%s) - start)) s"
	cat "$T/$1.out"
	grep -v ' running for ' "$T/$1.err"
	LOGS=$(sed -n 's/.*kernel-ci: logs in //p' "$T/$1.err")
	[ -d "$LOGS" ] || fail "$1: no log directory in: $(cat "$T/$1.err")"
	echo "$LOGS" >>"$T/logdirs"
}
has() {
	grep -q -- "$2" "$T/$1.out" || fail "$1: no '$2' in the report"
}

# 1. Does not apply: named, and nothing built (no make ran, no object
# written).
touch "$T/stamp"
sleep 1
run stale
[ $rc -eq 1 ] || fail "stale: exit $rc, want 1"
has stale "^fail kernel-ci/apply patch 1: patch 1/1 'init: fix a license line that is not there' does not apply on $SHORT: error: patch failed: init/main.c:1$"
[ "$(grep -c '^[a-z]* *kernel-ci/' "$T/stale.out")" -eq 1 ] ||
	fail "stale: more than the apply entry"
[ "$(ls "$LOGS")" = "apply.log" ] || fail "stale: logs of more than apply: $(ls "$LOGS")"
[ -z "$(find "$C/kernel-ci" -path '*/obj/*' -newer "$T/stamp" | head -n 1)" ] ||
	fail "stale: the object tree was written to"

# 2. Good: the base's tree (built first when the cache has none), then the
# version; the marker on the console, each stage with its time.
run good
[ $rc -eq 0 ] || fail "good: exit $rc, want 0"
has good "^pass kernel-ci/apply: 1 patch applied with git am on $SHORT.* in [0-9.]* s$"
has good "^pass kernel-ci/config: tinyconfig with the fragment, olddefconfig: [0-9.]* s$"
has good "^pass kernel-ci/build: bzImage built (.*[0-9.]* s), no new warnings$"
has good "^pass kernel-ci/boot: booted to the marker 'patchrelay-kernel-ci: init is running' in [0-9.]* s$"
has good "^    patchrelay-kernel-ci: init is running$"
has good "^    release: 6\.1\."
has good "^verdict: pass$"
grep -q "kci: hello from the patch" "$LOGS/boot.log" ||
	fail "good: the patched kernel did not boot (no hello in boot.log)"
[ -s "$LOGS/build.log" ] || fail "good: no build.log"

# 3. A compiler error: quoted, no boot.
run broken
[ $rc -eq 1 ] || fail "broken: exit $rc, want 1"
has broken "^fail kernel-ci/build: the build failed (incremental on the base's object tree: [0-9.]* s): init/main.c:[0-9]*:[0-9]*: error: 'kci_undefined_symbol' undeclared"
has broken "^    init/main.c: In function 'kci_broken':$"
has broken "^    init/main.c:[0-9]*:[0-9]*: error: 'kci_undefined_symbol' undeclared"
if grep -q "kernel-ci/boot" "$T/broken.out"; then fail "broken: booted"; fi

# 4. A panic in an initcall: the panic line quoted.
run panic
[ $rc -eq 1 ] || fail "panic: exit $rc, want 1"
has panic "^pass kernel-ci/build: "
has panic "^fail kernel-ci/boot: the kernel panicked at boot ([0-9.]* s): \[ *[0-9.]*\] Kernel panic - not syncing: kci: panic from an initcall$"
has panic "^    \[ *[0-9.]*\] Kernel panic - not syncing: kci: panic from an initcall$"
if grep -q "patchrelay-kernel-ci: init is running" "$LOGS/boot.log"; then
	fail "panic: init ran"
fi

# This run's logs go; the trees stay for the next run.
while read -r d; do rm -rf "$d"; done <"$T/logdirs"
echo "kernel_ci: ok in $(($(date +%s) - t0)) s"
