#!/bin/sh
# kernel-ci handed to a CI engine (run-on), against the emulators' GitLab
# CI and GitHub Actions: a pipeline (workflow run) that passes, one whose
# boot job fails (its trace, or its failed step, quoted), one that never
# finishes (cancelled at ci-timeout, the timeout reported), the version
# passed as variables (inputs), and a wrong trigger token or a workflow
# whose runs cannot be found.
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp" || exit 1
start_emulator gitlab "$tmp/lab"
LAB=$emu_url
start_emulator github "$tmp/hub"
HUB=$emu_url

# ctl BASE PATH JSON: a control request, its answer on stdout
ctl() {
	curl -sf -X POST -H 'Content-Type: application/json' -d "$3" "$1$2" ||
		fail "control $1$2 failed"
}

export GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME='Ada Lovelace' GIT_COMMITTER_EMAIL=ada@example.org
git init -q -b main tree
printf 'int main(void) { return 0; }\n' >tree/main.c
git -C tree add main.c
git -C tree commit -q -m base
BASE=$(git -C tree rev-parse HEAD)
git -C tree checkout -q -b topic
printf 'int main(void) { return 1; }\n' >tree/main.c
git -C tree commit -q -a -s -m 'main: return 1' -m 'So that CI has work.'
git -C tree format-patch -q --base="$BASE" -1 -o "$tmp/p"
PATCH=$(ls p/*.patch)

for b in "$LAB" "$HUB"; do
	ctl "$b" /_emu/users '{"login":"relay","token":"t-relay"}' >/dev/null
	ctl "$b" /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"linux\",\"from\":\"$tmp/tree\",\"ref\":\"main\"}" >/dev/null
done
ctl "$LAB" /_emu/ci '{"owner":"kernel","repo":"linux","trigger_token":"s3cret"}' >/dev/null
ctl "$HUB" /_emu/workflows '{"owner":"kernel","repo":"linux","workflow":"kernel-ci.yml","name":"kernel-ci","inputs":["patchrelay_id","series","version","base","mbox"],"required":["mbox"],"run_name":"kernel-ci ${{ inputs.patchrelay_id }} v${{ inputs.version }}"}' >/dev/null
ctl "$HUB" /_emu/workflows '{"owner":"kernel","repo":"linux","workflow":"untitled.yml","inputs":["patchrelay_id","series","version","base","mbox"]}' >/dev/null

export PR_CI_TOKEN=t-relay PR_TRIGGER=s3cret
conf() { # NAME RUN-ON EXTRA-LINES
	cat >"$1.conf" <<EOF
[source "in"]
	type = mbox
	path = $tmp/in.mbox
[sink "out"]
	type = maildir
	path = $tmp/md
[check "ci"]
	type = kernel-ci
	run-on = $2
	ci-project = kernel/linux
	ci-ref = main
	ci-token = env:PR_CI_TOKEN
	ci-poll = 100ms
	ci-timeout = 3s
$3
[route "r"]
	from = in
	step = ci
	to = out
EOF
}
conf lab gitlab-pipeline "	ci-api-url = $LAB/api/v4
	ci-trigger-token = env:PR_TRIGGER"
conf hub github-workflow "	ci-api-url = $HUB
	ci-workflow = kernel-ci.yml"
check() { # CONF OUT: the exit status in $rc
	rc=0
	"$PATCHRELAY" check -c "$1.conf" --route r "$PATCH" >"$2.out" 2>"$2.err" || rc=$?
	echo "== $2: exit $rc"
	cat "$2.out" "$2.err"
}
has() { grep -q -- "$2" "$1.out" || fail "$1: no '$2' in the report"; }

# --- GitLab: a pipeline that passes, one that fails, one that hangs ---
ctl "$LAB" /_emu/ci '{"owner":"kernel","repo":"linux","polls":2,"jobs":[{"name":"build","stage":"build","duration":61},{"name":"boot","stage":"test","duration":7}]}' >/dev/null
ctl "$LAB" /_emu/ci '{"owner":"kernel","repo":"linux","jobs":[{"name":"build","stage":"build"},{"name":"boot","stage":"test","status":"failed","trace":"Booting\nline 2\n[    0.8] Kernel panic - not syncing: from the patch\nERROR: Job failed: exit code 1\n"}]}' >/dev/null
ctl "$LAB" /_emu/ci '{"owner":"kernel","repo":"linux","never":true}' >/dev/null

check lab lab-pass
[ $rc -eq 0 ] || fail "lab-pass: exit $rc"
has lab-pass "^pass ci/pipeline: GitLab pipeline [0-9]* success after [0-9.]* s: $LAB/kernel/linux/-/pipelines/[0-9]*$"
has lab-pass "^pass ci/job:build: job 'build' (stage build) success in 61.0 s$"
has lab-pass "^pass ci/job:boot: job 'boot' (stage test) success in 7.0 s$"
# the version went as variables, the trigger token in the body only
curl -sf "$LAB/_emu/state" >state.json || fail "state"
$PY - "$BASE" <<'EOF' || fail "lab-pass: the pipeline's variables"
import json, sys
st = json.load(open("state.json"))
p = sorted(st["ci"]["pipelines"].values(), key=lambda p: p["id"])[0]
v = p["variables"]
assert v["PATCHRELAY_BASE"] == sys.argv[1], v
assert v["PATCHRELAY_VERSION"] == "1" and v["PATCHRELAY_SERIES"] == "check"
assert v["PATCHRELAY_ID"].startswith("pr-"), v
assert "] main: return 1\n" in v["PATCHRELAY_MBOX"], v
assert "-int main(void) { return 0; }" in v["PATCHRELAY_MBOX"]
assert p["ref"] == "main"
trig = [e for e in st["log"] if e["path"].endswith("/trigger/pipeline")]
assert trig and all("s3cret" not in e["path"] for e in trig)
EOF

check lab lab-fail
[ $rc -eq 1 ] || fail "lab-fail: exit $rc"
has lab-fail "^fail ci/pipeline: GitLab pipeline [0-9]* failed after"
has lab-fail "^pass ci/job:build: "
has lab-fail "^fail ci/job:boot: job 'boot' (stage test) failed in "
has lab-fail "^    \[    0.8\] Kernel panic - not syncing: from the patch$"
has lab-fail "^    ($LAB/kernel/linux/-/jobs/[0-9]*)$"

check lab lab-hang
[ $rc -eq 1 ] || fail "lab-hang: exit $rc"
has lab-hang "^fail ci/pipeline: GitLab pipeline [0-9]* did not finish within 3 s (running, cancelled): "
curl -sf "$LAB/_emu/state" >state.json || fail "state"
$PY -c 'import json
st = json.load(open("state.json"))
p = sorted(st["ci"]["pipelines"].values(), key=lambda p: p["id"])[-1]
assert p["status"] == "canceled" and p["canceled_by"] == "relay", p' ||
	fail "lab-hang: the pipeline was not cancelled"

PR_TRIGGER=wrong
check lab lab-token
PR_TRIGGER=s3cret
[ $rc -eq 3 ] || fail "lab-token: exit $rc, want 3"
grep -q "GitLab pipeline hand-off: POST '$LAB/api/v4/projects/kernel%2Flinux/trigger/pipeline': HTTP 404" lab-token.err ||
	fail "lab-token: no 404 named"
grep -q wrong lab-token.err && fail "lab-token: the token is in the message"

# --- GitHub: the same three, then a workflow whose runs carry no id ---
ctl "$HUB" /_emu/ci '{"owner":"kernel","repo":"linux","polls":2,"jobs":[{"name":"build"},{"name":"boot"}]}' >/dev/null
ctl "$HUB" /_emu/ci '{"owner":"kernel","repo":"linux","jobs":[{"name":"build"},{"name":"boot","conclusion":"failure","steps":[{"name":"Set up job","conclusion":"success"},{"name":"Boot in QEMU","conclusion":"failure"}]}]}' >/dev/null
ctl "$HUB" /_emu/ci '{"owner":"kernel","repo":"linux","never":true}' >/dev/null

check hub hub-pass
[ $rc -eq 0 ] || fail "hub-pass: exit $rc"
has hub-pass "^pass ci/workflow: GitHub Actions run [0-9]* success after [0-9.]* s: $HUB/kernel/linux/actions/runs/[0-9]*$"
has hub-pass "^pass ci/job:build: job 'build' success$"
has hub-pass "^pass ci/job:boot: job 'boot' success$"
curl -sf "$HUB/_emu/state" >state.json || fail "state"
$PY - "$BASE" <<'EOF' || fail "hub-pass: the run's inputs"
import json, sys
st = json.load(open("state.json"))
r = sorted(st["ci"]["runs"].values(), key=lambda r: r["id"])[0]
i = r["inputs"]
assert i["base"] == sys.argv[1] and i["version"] == "1", i
assert "] main: return 1\n" in i["mbox"]
assert r["title"] == "kernel-ci %s v1" % i["patchrelay_id"], r["title"]
log = [e for e in st["log"] if "/dispatches" in e["path"]]
assert log and log[0]["api_version"] == "2022-11-28"
assert log[0]["accept"] == "application/vnd.github+json"
assert log[0]["auth_scheme"] == "Bearer"
EOF

check hub hub-fail
[ $rc -eq 1 ] || fail "hub-fail: exit $rc"
has hub-fail "^fail ci/workflow: GitHub Actions run [0-9]* failure after"
has hub-fail "^fail ci/job:boot: job 'boot' failure$"
has hub-fail "^    step 2 'Boot in QEMU': failure$"

check hub hub-hang
[ $rc -eq 1 ] || fail "hub-hang: exit $rc"
has hub-hang "^fail ci/workflow: GitHub Actions run [0-9]* did not finish within 3 s (in_progress, cancelled): "
curl -sf "$HUB/_emu/state" >state.json || fail "state"
$PY -c 'import json
st = json.load(open("state.json"))
r = sorted(st["ci"]["runs"].values(), key=lambda r: r["id"])[-1]
assert r["conclusion"] == "cancelled" and r["cancelled_by"] == "relay", r' ||
	fail "hub-hang: the run was not cancelled"

sed 's/kernel-ci.yml/untitled.yml/' hub.conf >untitled.conf
check untitled hub-untitled
[ $rc -eq 1 ] || fail "hub-untitled: exit $rc"
has hub-untitled "^fail ci/workflow: no run of workflow 'untitled.yml' for pr-[0-9a-f]* showed within 3 s (does its run-name hold inputs.patchrelay_id?)$"

sed 's/kernel-ci.yml/nosuch.yml/' hub.conf >nosuch.conf
check nosuch hub-nosuch
[ $rc -eq 3 ] || fail "hub-nosuch: exit $rc, want 3"
grep -q "dispatches': HTTP 404" hub-nosuch.err || fail "hub-nosuch: no 404"
echo "kernel_ci_handoff: ok"
