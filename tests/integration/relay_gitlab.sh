#!/bin/sh
# The list and GitLab (tests/emulators/gitlab.py) bridged both ways, as
# relay_github.sh does for GitHub: (a) the 3-patch series on the list
# (public-inbox-httpd) becomes a merge request whose commits give the same
# patch-ids and authors through git format-patch; (b) a list reply with a
# Reviewed-by to patch 2 becomes one note; (c) a note on a line of the
# diff (a DiffNote with a position) becomes one reply mail under patch 2,
# quoted with the file and line; (d) the relayed mail back on the list and
# five more passes relay nothing; (e) v2 force-pushes the branch (the same
# merge request, its new head) and notes the range-diff; (f) lookup from
# the MR's reference group/project!1 and from its URL.
. "$(dirname "$0")/relay_lib.sh"

relay_tree
relay_pi v1/*.patch
relay_emulator gitlab
relay_smtpd
cover=$(message_id v1/0000-cover-letter.patch)
p2=$(message_id v1/0002-b-add-y.patch)

relay_conf gitlab project trigger=auto

mrs() {
	api GET '/projects/kernel%2Fnet/merge_requests?state=all' tok-grace |
		$PY -c 'import json, sys
for p in json.load(sys.stdin):
    print(p["iid"], p["state"], p["source_branch"], p["sha"])'
}
notes() { # the MR's notes by people (not GitLab's system notes)
	api GET '/projects/kernel%2Fnet/merge_requests/1/notes?sort=asc' \
		tok-grace | $PY -c 'import json, sys
for c in json.load(sys.stdin):
    if not c["system"]:
        print(json.dumps({"user": c["author"]["username"], "body": c["body"]}))'
}
ids() { git patch-id --stable <"$1" | cut -d' ' -f1; }

# ---- (a) a merge request of the same patches
run_once
mrs >mrs1
[ "$(wc -l <mrs1)" = 1 ] || fail "not one MR: $(cat mrs1) $(cat run.log)"
read -r num state ref head <mrs1
[ "$num $state" = "1 opened" ] || fail "MR: $(cat mrs1)"
git -C tree fetch -q "$B/git/kernel/net.git" refs/merge-requests/1/head ||
	fail "fetch of the MR"
git -C tree format-patch -q --stdout main..FETCH_HEAD >mr.mbox
cat v1/000[1-3]*.patch >sent.mbox
ids sent.mbox >want.ids
ids mr.mbox >got.ids
cmp want.ids got.ids || fail "patch-ids differ"
[ "$(git -C tree log --format='%an <%ae>' main..FETCH_HEAD | sort -u)" = \
	"Ada Lovelace <ada@example.org>" ] || fail "authors"
api GET /projects/kernel%2Fnet/merge_requests/1 tok-grace >mr1.json
$PY - "$PI_URL" "$cover" mr1.json <<'PY' || fail "MR: $(cat mr1.json)"
import json, sys
url, cover, path = sys.argv[1:]
m = json.load(open(path))
assert m["title"] == "three small additions", m
assert m["target_branch"] == "main", m
assert "Archive: %s%s/" % (url, cover) in m["description"], m
PY
run_once
mrs >mrs2
cmp mrs1 mrs2 || fail "a second run changed the MRs"
[ -z "$(notes)" ] || fail "notes after v1: $(notes)"

# ---- (b) a list reply -> one note
reply r2.eml 'Rob Reviewer <rob@example.org>' 'Re: [PATCH 2/3] b: add y' \
	"$p2" "<$cover> <$p2>" 'Reviewed-by: Rob Reviewer <rob@example.org>'
list_add r2.eml
run_once
notes >n1
[ "$(wc -l <n1)" = 1 ] || fail "not one note: $(cat n1) $(cat run.log)"
grep -q 'Rob Reviewer.*Reviewed-by: Rob Reviewer <rob@example.org>' n1 ||
	fail "the note: $(cat n1)"

# ---- (c) a note on line 2 of b.txt -> one reply mail under patch 2
base=$(git -C tree rev-parse main)
api POST /projects/kernel%2Fnet/merge_requests/1/discussions tok-grace \
	"{\"body\":\"yy, perhaps?\",\"position\":{\"position_type\":\"text\",\"base_sha\":\"$base\",\"start_sha\":\"$base\",\"head_sha\":\"$head\",\"new_path\":\"b.txt\",\"old_path\":\"b.txt\",\"new_line\":2}}" >d.json
run_once
[ "$(mails)" = 1 ] || fail "not one mail: $(mails) $(cat run.log)"
m=$(find box/new box/cur -type f | head -1)
$PY - "$m" "$p2" <<'PY' || fail "the reply mail: $(cat "$m")"
import email, email.policy, sys
path, p2 = sys.argv[1:]
m = email.message_from_binary_file(open(path, "rb"), policy=email.policy.default)
assert m["In-Reply-To"] == "<%s>" % p2, m["In-Reply-To"]
assert m["Subject"] == "Re: [PATCH 2/3] b: add y", m["Subject"]
assert m["From"] == "grace <relay@example.org>", m["From"]
b = m.get_content()
assert "on b.txt line 2" in b and "\n> +y\n" in b, b
assert "yy, perhaps?" in b and "merge_requests/1#note_" in b, b
PY
notes >n1
[ "$(wc -l <n1)" = 2 ] || fail "the DiffNote came back: $(cat n1)"

# ---- (d) back on the list, five passes: nothing new
list_add "$m"
for i in 1 2 3 4 5; do
	run_once
done
[ "$(mails)" = 1 ] || fail "mails after five passes: $(mails)"
notes >n2
cmp n1 n2 || fail "notes after five passes: $(cat n2)"
mrs >mrs3
cmp mrs1 mrs3 || fail "MRs after five passes: $(cat mrs3)"

# ---- (e) v2: the same MR, force-pushed, a range-diff note
list_add v2/*.patch
run_once
mrs >mrs4
read -r num state ref2 head2 <mrs4
[ "$(wc -l <mrs4)" = 1 ] && [ "$num $state $ref2" = "1 opened $ref" ] ||
	fail "v2's MR: $(cat mrs4)"
[ "$head2" != "$head" ] || fail "v2 not pushed: $(tail -5 run.log)"
notes | tail -1 | grep -q 'Range-diff against v1' ||
	fail "no range-diff note: $(notes)"
git -C tree fetch -q "$B/git/kernel/net.git" refs/merge-requests/1/head
git -C tree format-patch -q --stdout main..FETCH_HEAD >mr2.mbox
cat v2/v2-000[1-3]*.patch >sent2.mbox
ids sent2.mbox >want2.ids
ids mr2.mbox >got2.ids
cmp want2.ids got2.ids || fail "v2 patch-ids differ"

# ---- (f) lookup by the MR's reference and URL
"$PATCHRELAY" lookup -c relay.conf 'kernel/net!1' >l1 || fail "lookup !1"
grep -q "^series netdev $cover (2 versions)" l1 || fail "lookup: $(cat l1)"
url=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["web_url"])' mr1.json)
"$PATCHRELAY" lookup -c relay.conf "$url" >l2 || fail "lookup URL"
cmp l1 l2 || fail "lookup by URL differs"
grep -q "gitlab-url   $url" l1 || fail "no gitlab-url: $(cat l1)"
exit 0
