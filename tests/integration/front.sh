#!/bin/sh
# The `patchrelay` front (cli/front.c): it links libpcre2 and libc only,
# runs `route` itself, exec()s patchrelay-full for every other command (in
# the same process), finds it in the build tree and in an install made by
# `meson install` (also once that install is moved), and says where it
# looked when it is missing.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

# 1. what the dynamic loader has to load: no curl, libgit2, sqlite, ...
readelf -d "$PATCHRELAY" >"$tmp/dyn" || fail "readelf failed"
sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' "$tmp/dyn" >"$tmp/needed"
grep -q '^libpcre2-8\.so' "$tmp/needed" || fail "no libpcre2: $(cat "$tmp/needed")"
# the sanitizer runtimes come with -Db_sanitize
if grep -v -e '^libpcre2-8\.so' -e '^libc\.so' -e '^libasan\.so' \
	-e '^libubsan\.so' -e '^libm\.so' -e '^libgcc_s\.so' -e '^ld-linux' \
	"$tmp/needed" >"$tmp/extra"; then
	fail "the front needs more than libpcre2 and libc: $(cat "$tmp/extra")"
fi

# 2. the build tree: other commands reach the full binary
"$PATCHRELAY" --version >"$tmp/v" 2>&1 || fail "--version: $(cat "$tmp/v")"
grep -q '^patchrelay [0-9]' "$tmp/v" || fail "--version printed $(cat "$tmp/v")"
"$PATCHRELAY" help plugin maintainers >"$tmp/h" 2>&1 || fail "help plugin: $(cat "$tmp/h")"
"$PATCHRELAY" nosuchcommand >"$tmp/out" 2>&1
[ $? -eq 2 ] || fail "unknown command: exit not 2"
grep -q "'nosuchcommand' is not a command" "$tmp/out" ||
	fail "unknown command: $(cat "$tmp/out")"

# exec keeps the process: the pid the shell started becomes the full binary
mkdir -p "$tmp/pid/maildir"
cat >"$tmp/pid/relay.conf" <<CONF
[core]
	state = $tmp/pid/state.db
[source "in"]
	type = mbox
	path = $tmp/pid/none.mbox
[sink "out"]
	type = maildir
	path = $tmp/pid/maildir
[route "r"]
	from = in
	to = out
CONF
: >"$tmp/pid/none.mbox"
spawn pid "$PATCHRELAY" run -c "$tmp/pid/relay.conf" --interval 1 \
	>"$tmp/pid/log" 2>&1
exe=""
runs_full() { # whether the pid runs patchrelay-full yet
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
	case "$exe" in *patchrelay-full) ;; *) return 1 ;; esac
}
wait_for 10 runs_full || :
stop "$pid"
case "$exe" in
*patchrelay-full) ;;
*) fail "pid $pid runs '$exe', not patchrelay-full: $(cat "$tmp/pid/log")" ;;
esac

# 3. route runs without the full binary; the rest says where it looked
mkdir -p "$tmp/alone"
cp "$PATCHRELAY" "$tmp/alone/patchrelay"
cat >"$tmp/M" <<'M'
FOO DRIVER
M:	Foo Bar <foo@example.org>
L:	foo@lists.example.org
S:	Maintained
F:	drivers/foo/
M
cat >"$tmp/p.patch" <<'P'
From: A <a@example.org>
Subject: [PATCH] foo: fix

---
diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c
--- a/drivers/foo/foo.c
+++ b/drivers/foo/foo.c
@@ -1 +1 @@
-a
+b
P
(cd "$tmp" && "$tmp/alone/patchrelay" route --maintainers "$tmp/M" \
	"$tmp/p.patch") >"$tmp/route.out" 2>&1 ||
	fail "route alone: $(cat "$tmp/route.out")"
printf '%s\n' 'Foo Bar <foo@example.org> (maintainer:FOO DRIVER)' \
	'foo@lists.example.org (open list:FOO DRIVER)' >"$tmp/route.want"
cmp -s "$tmp/route.want" "$tmp/route.out" ||
	fail "route alone printed: $(cat "$tmp/route.out")"
"$tmp/alone/patchrelay" --version >"$tmp/out" 2>&1
[ $? -eq 3 ] || fail "no full binary: exit not 3"
grep -q "patchrelay: error: the full patchrelay binary is missing: '$tmp/alone/patchrelay-full', '$tmp/alone/.*patchrelay-full'" \
	"$tmp/out" || fail "no full binary: $(cat "$tmp/out")"

# 4. meson install: bin/patchrelay finds libexec/patchrelay/patchrelay-full
if ! command -v meson >/dev/null 2>&1; then
	echo "skip: no meson for the install check"
	exit 0
fi
meson install -C "$PR_BUILD" --no-rebuild --quiet --destdir "$tmp/dest" \
	>"$tmp/install.log" 2>&1 || fail "meson install: $(cat "$tmp/install.log")"
front=$(find "$tmp/dest" -path '*/bin/patchrelay' -type f | head -n 1)
[ -n "$front" ] || fail "meson install put no bin/patchrelay"
full=$(find "$tmp/dest" -name patchrelay-full -type f | head -n 1)
case "$full" in
*/libexec/patchrelay/patchrelay-full) ;;
*) fail "patchrelay-full installed at '$full'" ;;
esac
[ ! -e "$(dirname "$front")/patchrelay-full" ] ||
	fail "patchrelay-full installed in bin/"
"$front" --version >"$tmp/v2" 2>&1 || fail "installed --version: $(cat "$tmp/v2")"
cmp -s "$tmp/v" "$tmp/v2" || fail "installed --version: $(cat "$tmp/v2")"
# a moved prefix still works: the path is relative to the front
mv "$tmp/dest" "$tmp/moved"
front=$(find "$tmp/moved" -path '*/bin/patchrelay' -type f | head -n 1)
"$front" help plugin maintainers >"$tmp/h2" 2>&1 || fail "moved install: $(cat "$tmp/h2")"
cmp -s "$tmp/h" "$tmp/h2" || fail "moved install: help differs"
(cd "$tmp" && "$front" route --maintainers "$tmp/M" "$tmp/p.patch") \
	>"$tmp/route2.out" 2>&1 || fail "installed route: $(cat "$tmp/route2.out")"
cmp -s "$tmp/route.want" "$tmp/route2.out" || fail "installed route differs"
exit 0
