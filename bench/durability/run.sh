#!/bin/bash
# Issue 29's figures in one sitting (BENCHMARKS.md "Durability on bbolt"): the write latency
# and group commit (BenchmarkDurableWrite/datadir), the restart on 100,000 patients
# (BenchmarkRestart100k, and the real binary by bench/restart/run.sh), the tree at REV (before)
# and this tree (after) alternated round by round; then the churn of CHURN creates and resets
# (BenchmarkChurnFileSize, this tree only). Run it on a quiet machine; only ratios within one run
# mean anything. Loopback only; temporary files are removed at the end.
#
#   bash bench/durability/run.sh [REV] [CHURN]   from the repository root
#                                                (default d4f7387, the log before issue 29; 1000000)
set -u
rev=${1:-d4f7387}
churn=${2:-1000000}
fail() { echo "durability/run.sh: $*" >&2; exit 1; }
[ -d cmd/medspa-mock ] || fail "run from the repository root"
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/before-tree" 2>/dev/null; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/before-tree" "$rev" || fail "no tree at $rev"
(cd "$tmp/before-tree" && go test -c -o "$tmp/before.test" ./mockserver && go build -o "$tmp/before-mock" ./cmd/medspa-mock) || fail "build $rev"
(go test -c -o "$tmp/after.test" ./mockserver && go build -o "$tmp/after-mock" ./cmd/medspa-mock) || fail "build this tree"
stamp() { echo "## $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) $*"; }
for r in 1 2 3; do
  for t in before after; do
    stamp "write, $t, round $r"
    "$tmp/$t.test" -test.run '^$' -test.bench 'DurableWrite/datadir' -test.benchtime 3s | grep Benchmark
  done
done
for r in 1 2; do
  for t in before after; do
    stamp "Restart100k, $t, round $r"
    "$tmp/$t.test" -test.run '^$' -test.bench 'Restart100k' -test.benchtime 3x -test.timeout 30m | grep Benchmark
    stamp "the binary's restart, $t, round $r"
    bash bench/restart/run.sh 3 "$tmp/$t-mock"
  done
done
stamp "churn, after, $churn"
MEDSPA_CHURN=$churn "$tmp/after.test" -test.run '^$' -test.bench 'ChurnFileSize' -test.benchtime 1x -test.timeout 60m | grep Benchmark
stamp done
