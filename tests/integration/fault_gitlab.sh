#!/bin/sh
# The gitlab source's fault matrix (tests/integration/fault_forge.sh)
# against tests/emulators/gitlab.py behind tests/servers/fault_proxy.py:
# connection refused, a server that never answers (the timeout), a list
# cut in the middle, a certificate nobody signed (refused with the
# reason), 500, 502, 503, 429 with Retry-After and 403 with a used-up rate
# limit (no request before the time), a truncated and a garbage list, the
# commits' git fetch failing or cut, the report comment refused, and the
# daemon backing off; after each the same pass relays exactly what was
# pending and posts one report per merge request.
set -eu
. "$(dirname "$0")/lib.sh"
forge=gitlab
. "$PR_SRC/tests/integration/fault_forge.sh"
