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
. "$(dirname "$0")/lib.sh"
for tool in qemu-system-x86_64 make gcc flex bison bc cpio; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done
[ -x /bin/busybox ] || skip "no /bin/busybox (busybox-static)"
tmpdir
t0=$(date +%s)
kernel_git
BASE=$(git --git-dir="$G" rev-parse HEAD) || fail "no HEAD in $G"
SHORT=$(echo "$BASE" | cut -c1-12)
echo "kernel tree repository ready: $(($(date +%s) - t0)) s"

cat >"$tmp/kci.conf" <<EOF
[source "in"]
	type = mbox
	path = $tmp/in.mbox
[sink "out"]
	type = maildir
	path = $tmp/md
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
	} >"$tmp/$1.patch"
}

# A patch appending $2 (a file of C) to init/main.c.
append_patch() {
	git --git-dir="$G" show HEAD:init/main.c >"$tmp/main.c" || fail "no init/main.c"
	cat "$tmp/main.c" "$2" >"$tmp/main.new"
	{
		echo "diff --git a/init/main.c b/init/main.c"
		diff -u --label a/init/main.c --label b/init/main.c \
			"$tmp/main.c" "$tmp/main.new"
	} | mail "$1" "$3"
}

cat >"$tmp/good.c" <<'EOF'

static int __init kci_hello(void)
{
	pr_info("kci: hello from the patch\n");
	return 0;
}
late_initcall(kci_hello);
EOF
append_patch good "$tmp/good.c" "init: say hello from a late initcall"

cat >"$tmp/broken.c" <<'EOF'

static int __init kci_broken(void)
{
	return kci_undefined_symbol;
}
late_initcall(kci_broken);
EOF
append_patch broken "$tmp/broken.c" "init: use a symbol nobody defines"

cat >"$tmp/panic.c" <<'EOF'

static int __init kci_panic(void)
{
	panic("kci: panic from an initcall");
	return 0;
}
late_initcall(kci_panic);
EOF
append_patch panic "$tmp/panic.c" "init: panic in a late initcall"

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

# run CASE [--step]: the check through the route's step, or as a --step
run() {
	start=$(date +%s)
	rc=0
	if [ "${2:-}" = --step ]; then
		"$PATCHRELAY" check --step "kernel-ci:kernel-tree=$G,build-dir=$C/kernel-ci,timeout=50m,boot-timeout=5m" \
			"$tmp/$1.patch" >"$tmp/$1.out" 2>"$tmp/$1.err" || rc=$?
	else
		"$PATCHRELAY" check -c "$tmp/kci.conf" --route r "$tmp/$1.patch" \
			>"$tmp/$1.out" 2>"$tmp/$1.err" || rc=$?
	fi
	echo "== case $1: exit $rc, $(($(date +%s) - start)) s"
	cat "$tmp/$1.out"
	grep -v ' running for ' "$tmp/$1.err"
	LOGS=$(sed -n 's/^    (logs: \(.*\))$/\1/p' "$tmp/$1.out")
	[ -d "$LOGS" ] || fail "$1: no log directory in: $(cat "$tmp/$1.out")"
	echo "$LOGS" >>"$tmp/logdirs"
}
has() {
	grep -q -- "$2" "$tmp/$1.out" || fail "$1: no '$2' in the report"
}

# 1. Does not apply: named, and nothing built (no make ran).
run stale
[ $rc -eq 1 ] || fail "stale: exit $rc, want 1"
has stale "^fail kernel-ci/apply patch 1: patch 1/1 'init: fix a license line that is not there' does not apply on $SHORT: error: patch failed: init/main.c:1$"
[ "$(grep -c '^[a-z]* *kernel-ci/' "$tmp/stale.out")" -eq 1 ] ||
	fail "stale: more than the apply entry"
# (the run's own logs say so: another run may build in the shared tree)
[ "$(ls "$LOGS")" = "apply.log" ] || fail "stale: logs of more than apply: $(ls "$LOGS")"
grep -q '^\$ make' "$LOGS/apply.log" && fail "stale: make ran"

# 2. Good: the base's tree (built first when the cache has none), then the
# version; the marker on the console, each stage with its time.  This one
# as `patchrelay check --step kernel-ci:kernel-tree=DIR PATCH`.
run good --step
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

# The example's recipe (gen_init_cpio from the tree) makes the archive the
# plugin wrote itself: the same entries, the same /init.
sh "$PR_SRC/examples/qemu-boot/make-initramfs.sh" "$L" "$tmp/example.cpio" ||
	fail "examples/qemu-boot/make-initramfs.sh failed"
OWN=$(ls "$C"/kernel-ci/initramfs-*.cpio | head -n 1)
cpio -it --quiet <"$tmp/example.cpio" >"$tmp/example.list" &&
	cpio -it --quiet <"$OWN" >"$tmp/own.list" &&
	cmp "$tmp/example.list" "$tmp/own.list" ||
	fail "the example's initramfs lists other entries"
(cd "$tmp" && mkdir ex own && cd ex && cpio -id --quiet init <../example.cpio &&
	cd ../own && cpio -id --quiet init <"$OWN" && cmp ../ex/init init) ||
	fail "the example's /init is not the plugin's"

# 3. A compiler error: quoted, no boot.
run broken
[ $rc -eq 1 ] || fail "broken: exit $rc, want 1"
has broken "^fail kernel-ci/build: the build failed (incremental on the base's object tree: [0-9.]* s): init/main.c:[0-9]*:[0-9]*: error: .*kci_undefined_symbol.* undeclared"
has broken "^    init/main.c: In function .*kci_broken.*:$"
has broken "^    init/main.c:[0-9]*:[0-9]*: error: .*kci_undefined_symbol.* undeclared"
if grep -q "kernel-ci/boot" "$tmp/broken.out"; then fail "broken: booted"; fi

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
while read -r d; do rm -rf "$d"; done <"$tmp/logdirs"
echo "kernel_ci: ok in $(($(date +%s) - t0)) s"
