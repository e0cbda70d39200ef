#!/bin/sh
# Regenerate every *.expected from *.msg with the reference tool:
#   git interpret-trailers --parse (git 2.39), default configuration.
# Run from anywhere: sh tests/data/trailers/regen.sh
set -e
cd "$(dirname "$0")"
export HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
for m in *.msg; do
	git interpret-trailers --parse <"$m" >"${m%.msg}.expected"
done
