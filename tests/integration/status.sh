#!/bin/sh
# patchrelay status: a missing state is an error and is not created; an
# empty file is migrated; series and deliveries written to the store show
# in the table and in --json; -c takes the state path from core.state.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

if "$PATCHRELAY" status --state "$tmp/none.db" 2>err; then
	fail "status of a missing state succeeded"
fi
grep -q "no state file '$tmp/none.db'" err || fail "bad message: $(cat err)"
[ ! -e "$tmp/none.db" ] || fail "status created the state file"

: > s.db
"$PATCHRELAY" status --state s.db > out || fail "status of an empty store"
grep -q '^SERIES' out || fail "no table header"
[ "$(wc -l < out)" -eq 1 ] || fail "rows in an empty store: $(cat out)"

# fill the store as the engine would have (schema 4 and later)
$PY - <<'PYEOF'
import sqlite3
db = sqlite3.connect("s.db")
assert db.execute("SELECT version FROM schema_version").fetchone()[0] >= 4
db.executescript("""
INSERT INTO series (id, origin, key) VALUES (1, 'demo', 'topic');
INSERT INTO series (id, origin, key) VALUES (2, 'gh', 'pr/7');
INSERT INTO versions (series_id, number, fingerprint, nr_patches, created,
	mbox) VALUES (1, 1, 'f1', 3, 0, NULL);
INSERT INTO versions (series_id, number, fingerprint, nr_patches, created,
	mbox) VALUES (1, 2, 'f2', 3, 0, NULL);
INSERT INTO deliveries VALUES (1, 1, 2, 'inbox', 3);
INSERT INTO delivery_messages VALUES (1, 0, 1, 1, NULL, 1, '1@x');
INSERT INTO delivery_messages VALUES (1, 1, 0, 2, 'disk full', 2, NULL);
INSERT INTO delivery_messages VALUES (1, 2, 0, 0, NULL, NULL, NULL);
""")
db.commit()
PYEOF

"$PATCHRELAY" status --state s.db > out || fail "status failed"
grep -Eq '^demo:topic +2 +inbox +v2 +1/3 +3 +disk full$' out ||
	fail "bad delivery row: $(cat out)"
grep -Eq '^gh:pr/7 +0 +- ' out || fail "bad row without delivery: $(cat out)"

"$PATCHRELAY" status --state s.db --json > out.json || fail "--json failed"
$PY - <<'PYEOF' || fail "bad json: $(cat out.json)"
import json
j = json.load(open("out.json"))
d = j["deliveries"]
assert j["state"] == "s.db"
assert len(d) == 2, d
assert d[0] == {"origin": "demo", "key": "topic", "versions": 2,
                "sink": "inbox", "version": 2, "messages": 3, "sent": 1,
                "attempts": 3, "rejected": 0, "last_error": "disk full"}, d[0]
assert d[1]["key"] == "pr/7" and d[1]["sink"] is None, d[1]
PYEOF

# -c: the state named by core.state
mkdir patchrelay-demo
cp s.db patchrelay-demo/state.db
"$PATCHRELAY" status -c "$PR_SRC/examples/demo.conf" > out ||
	fail "status -c failed"
grep -q '^demo:topic' out || fail "status -c: $(cat out)"

rc=0
"$PATCHRELAY" status --bogus 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "a bad option gave exit status $rc, not 2"
echo "status.sh: ok"
