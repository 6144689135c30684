#!/usr/bin/env bash
# Every test, on a fresh machine too: first what the tests need beyond Go (Debian's chromium and
# the pinned axe-core, for the inspector page's browser tests: .ci/install-test-deps, which skips
# what is already there), then the whole suite under the race detector. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")"
if [ -x .ci/install-test-deps ] || [ -f .ci/install-test-deps ]; then
  bash .ci/install-test-deps
fi
exec go test -race -p 6 ./...
