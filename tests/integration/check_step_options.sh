#!/bin/sh
# `patchrelay check --step TYPE:key=value` takes every option of every plugin
# type's table, as a config file does: the types and the keys come from the
# registry (`patchrelay help`, which prints the tables), each key is given a
# valid value of its type and the step runs (exit 0 or 1, nothing on
# stderr); an unknown key and a value of the wrong type are refused with
# exit 2 and the config loader's message, naming the --step argument.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

# a patch to the small tree that has its own MAINTAINERS
git_identity 'A U Thor <author@example.org>'
G="$tmp/tree"
route_tree "$G"
echo 'int foo2;' >>"$G/drivers/net/foo/foo.c"
git -C "$G" commit -q -a -s -m "foo: add foo2

The test needs a change to a maintained file." || fail "commit 2"
git -C "$G" format-patch -q -1 -o "$tmp/p" || fail "format-patch"
P=$(ls "$tmp"/p/*.patch)
printf 'nobody@example.org\n' >"$tmp/opt-out"

# What a type needs before any of its options can run: exec a command,
# maintainers a MAINTAINERS; the key under test replaces it when it is one
# of these.
needs() { # TYPE KEY
	case "$1:$2" in
	exec:command | exec:cmd | maintainers:kernel-tree | maintainers:maintainers) ;;
	exec:*) printf 'cmd=true,' ;;
	# kernel-ci on the small tree, which has no Makefile: git am, then a
	# failed build, in a build directory of the test's own
	kernel-ci:*) printf 'kernel-tree=%s,build-dir=%s,' "$G" "$tmp/kci" ;;
	maintainers:*) printf 'maintainers=%s,' "$G/MAINTAINERS" ;;
	esac
}

# A valid value: the key's own where its meaning asks for one, else by type.
value() { # KEY TYPE CHOICE
	case "$1" in
	cwd | kernel-tree | repo) echo "$G"; return ;;
	maintainers) echo "$G/MAINTAINERS"; return ;;
	opt-out-file) echo "$tmp/opt-out"; return ;;
	config | initramfs) echo "$tmp/opt-out"; return ;;
	cc) echo lists; return ;;
	warn-status) echo 1; return ;;
	command | cmd) echo true; return ;;
	esac
	case "$2" in
	integer) echo 3 ;;
	size) echo 2k ;;
	duration) echo 5s ;;
	bool) echo true ;;
	enum) echo "$3" ;;
	secret) echo env:HOME ;;
	*) echo x ;;
	esac
}

# A value of the wrong type and the loader's words for it; none for the
# types that take any text.
bad() { # TYPE -> "VALUE|MESSAGE"
	case "$1" in
	integer) echo "x|bad integer 'x'" ;;
	size) echo "2Q|bad size '2Q'" ;;
	duration) echo "5x|bad duration '5x'" ;;
	bool) echo "maybe|bad boolean 'maybe'" ;;
	enum) echo "no-such-choice|bad value 'no-such-choice'" ;;
	path) echo "|empty path" ;;
	esac
}

step() { # SPEC: runs check with it; $rc, $tmp/out, $tmp/err
	"$PATCHRELAY" check --step "$1" "$P" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

accepts() { # TYPE SPEC
	step "$2"
	[ $rc -eq 0 ] || [ $rc -eq 1 ] ||
		fail "--step '$2': exit $rc, want 0 or 1: $(cat "$tmp/err")"
	[ -s "$tmp/err" ] && fail "--step '$2': $(cat "$tmp/err")"
	grep -Eq "^(pass|warn|fail) $1[:/ ]" "$tmp/out" ||
		fail "--step '$2': no entry of $1 in: $(cat "$tmp/out")"
	accepted=$((accepted + 1))
}

refuses() { # SPEC KEY MESSAGE
	step "$1"
	[ $rc -eq 2 ] || fail "--step '$1': exit $rc, want 2"
	grep -qF -- "patchrelay: --step '$1': check.$type.$2: $3" "$tmp/err" ||
		fail "--step '$1': want '$3', got: $(cat "$tmp/err")"
	echo "$3" >>"$tmp/seen"
	refused=$((refused + 1))
}

"$PATCHRELAY" help >"$tmp/list" || fail "help: exit $?"
awk '/^plugins:/{p=1;next} /^$/{p=0} p&&/^   [a-z]/{print $1}' "$tmp/list" >"$tmp/types"
[ "$(wc -l <"$tmp/types")" -ge 5 ] || fail "want 5 plugin types or more: $(cat "$tmp/types")"

accepted=0 refused=0 rows=0
while read -r type; do
	"$PATCHRELAY" help plugin "$type" >"$tmp/help" || fail "help plugin $type"
	# KEY TYPE CHOICES (the enum's, comma-separated), the type key left out
	awk '/^   KEY /{t=1;next} t&&/^   [a-z]/&&$1!="type" {
		c = ""
		if ($2 == "enum" && match($0, /\[[^]]*\]$/))
			c = substr($0, RSTART + 1, RLENGTH - 2)
		gsub(/ /, "", c)
		print $1, $2, c
	}' "$tmp/help" >"$tmp/keys"
	[ -s "$tmp/keys" ] || fail "$type: no options"
	while read -r key otype choices; do
		rows=$((rows + 1))
		base=$(needs "$type" "$key")
		if [ "$otype" = enum ]; then
			# every choice of an enum
			for c in $(echo "$choices" | tr ',' ' '); do
				# a hand-off needs its CI: kernel_ci_handoff.sh
				case $type:$key:$c in
				kernel-ci:run-on:local) ;;
				kernel-ci:run-on:*) continue ;;
				esac
				accepts "$type" "$type:$base$key=$(value "$key" enum "$c")"
			done
		else
			accepts "$type" "$type:$base$key=$(value "$key" "$otype" "")"
		fi
		b=$(bad "$otype")
		[ -n "$b" ] &&
			refuses "$type:$base$key=${b%%|*}" "$key" "${b#*|}"
		# a key without "=value": a boolean's true, for others no value
		if [ "$otype" = bool ]; then
			accepts "$type" "$type:$base$key"
		elif [ -n "$b" ]; then
			refuses "$type:$base$key" "$key" "missing value"
		fi
	done <"$tmp/keys"
	refuses "$type:$(needs "$type" x)no-such-key=1" no-such-key \
		"unknown key for type '$type'"
done <"$tmp/types"

# the walk covered the tables, and refusals of every kind were seen
[ "$rows" -ge 40 ] || fail "only $rows options in the tables"
[ "$accepted" -ge "$rows" ] || fail "$accepted accepted of $rows options"
for m in "bad integer" "bad size" "bad duration" "bad boolean" "bad value" \
	"empty path" "missing value" "unknown key"; do
	grep -q "^$m" "$tmp/seen" || fail "no refusal '$m' seen"
done
echo "check_step_options: $rows options of $(wc -l <"$tmp/types") types," \
	"$accepted runs accepted, $refused refused"
