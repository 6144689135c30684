#!/bin/bash
# Throughput of the mock server measured from outside the process (issue 21): wrk against the
# real binary and against a bare net/http server (bench/wrk/baseline: the same patients, JSON
# encoded for every request), alternating in one run so that the ratios hold on a noisy machine.
#
#   bash bench/wrk/run.sh [SECONDS] [ROUNDS]      from the repository root
#
#   SECONDS  per wrk measurement (default 5); ROUNDS  alternating rounds per scenario (default 2)
#   MOCK=path/to/medspa-mock   measure a binary built elsewhere (default: built from this tree)
#   SCALE=0                    skip the scale scenario (minutes: it seeds 1,000,000 patients)
#
# Both servers hold 1,000 patients ({firstName, lastName, email}); the mock runs its full stack
# (auth, scopes, rate limiting with a custom-plan key whose limits never bind, audit, journal and
# its log line, PHI sealing) with its defaults, its log going to a file. Scenarios:
#   get   GET /api/v1/patients/{id}, 32 connections                       req/s, p99, ratio
#   list  GET /api/v1/patients?page=3&perPage=20, 32 connections           req/s, p99, ratio
#   c1    the same two at 1 connection                                     p50, p99, p99 ratio
#   rss   the mock's resident memory before the load and after all of it
#   scale bench/wrk/scale.sh: 1,000,000 patients seeded, RSS, list page 1 vs the last page
# Loopback only. Needs wrk, curl, python3 and go.
set -u
D=${1:-5}
R=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "wrk/run.sh: $*" >&2; exit 1; }
for c in wrk curl python3 go; do command -v $c >/dev/null || fail "needs $c"; done
[ -d cmd/medspa-mock ] || fail "run from the repository root"
tmp=$(mktemp -d)
mp=""; bp=""
trap '[ -n "$mp" ] && kill $mp 2>/dev/null; [ -n "$bp" ] && kill $bp 2>/dev/null; rm -rf "$tmp"' EXIT

mock=${MOCK:-}
if [ -z "$mock" ]; then go build -o "$tmp/mock" ./cmd/medspa-mock || fail "build mock"; mock=$tmp/mock; fi
go build -o "$tmp/base" ./bench/wrk/baseline || fail "build baseline"

port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
json() { python3 -c "import sys,json;print(json.load(sys.stdin)$1)"; }
mport=$(port); bport=$(port)
"$mock" -addr 127.0.0.1:$mport >"$tmp/mock.log" 2>&1 & mp=$!
"$tmp/base" -addr 127.0.0.1:$bport -token x -n 1000 >"$tmp/base.log" 2>&1 & bp=$!
for i in $(seq 100); do
  curl -s -o /dev/null "http://127.0.0.1:$mport/api/v1/openapi.yaml" &&
    curl -s -o /dev/null -H "Authorization: Bearer x" "http://127.0.0.1:$bport/api/v1/patients" && break
  sleep 0.1
done

# A key whose limits never bind, in an account of its own; 1,000 patients loaded as fixtures
# (one request, through the same store rules and sealing as POST /api/v1/patients).
created=$(curl -sf -H 'Content-Type: application/json' \
  -d '{"plan":"custom","ratePerMinute":1000000000,"burst":1000000000,"daily":0,"scopes":["*"]}' \
  "http://127.0.0.1:$mport/__admin/api-keys") || fail "admin api-keys"
key=$(echo "$created" | json '["key"]'); acct=$(echo "$created" | json '["account"]')
python3 -c '
import json, sys
print(json.dumps({"account": sys.argv[1], "patients": [
    {"firstName": "Ada%d" % i, "lastName": "Lovelace", "email": "ada%d@example.com" % i} for i in range(1, 1001)]}))
' "$acct" >"$tmp/fixtures.json"
pid=$(curl -sf -H 'Content-Type: application/json' --data-binary @"$tmp/fixtures.json" \
  "http://127.0.0.1:$mport/__admin/fixtures" | json '["patients"][0]') || fail "fixtures"
bid=$(curl -sf -H 'Authorization: Bearer x' "http://127.0.0.1:$bport/api/v1/patients?page=1&perPage=1" |
  json '["data"][0]["id"]') || fail "baseline list"

rss() { awk '/VmRSS/{print int($2/1024)}' /proc/$mp/status; }
# usec converts wrk's latency ("812.00us", "1.23ms", "1.01s") to microseconds.
usec() { awk -v v="$1" 'BEGIN{n=v+0; if (v ~ /us$/) print n; else if (v ~ /ms$/) print n*1000; else if (v ~ /s$/) print n*1000000; else print n}'; }
# run URL TOKEN CONNS prints "req/s p50 p99" (p50 and p99 in µs); a non-2xx answer fails the run.
run() {
  wrk -t$(( $3 > 1 ? 2 : 1 )) -c$3 -d${D}s --latency -H "Authorization: Bearer $2" "$1" >"$tmp/w.out" 2>&1
  grep -q 'Non-2xx' "$tmp/w.out" && fail "non-2xx under load: $(grep Non-2xx "$tmp/w.out") ($1)"
  echo "$(awk '/Requests\/sec/{print $2}' "$tmp/w.out") $(usec "$(awk '$1=="50%"{print $2}' "$tmp/w.out")") $(usec "$(awk '$1=="99%"{print $2}' "$tmp/w.out")")"
}
ratio() { python3 -c "print(round(float('$1')/max(float('$2'),1e-9),3))"; }
sum() { python3 -c "print(sum(float(x) for x in '$*'.split()))"; }

r0=$(rss)
echo "mock: $mock; $D s per measurement, $R alternating rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"
run "http://127.0.0.1:$bport/api/v1/patients/$bid" x 32 >/dev/null # warm-up of both
run "http://127.0.0.1:$mport/api/v1/patients/$pid" "$key" 32 >/dev/null
for what in get list; do
  if [ $what = get ]; then bu="http://127.0.0.1:$bport/api/v1/patients/$bid"; mu="http://127.0.0.1:$mport/api/v1/patients/$pid"
  else bu="http://127.0.0.1:$bport/api/v1/patients?page=3&perPage=20"; mu="http://127.0.0.1:$mport/api/v1/patients?page=3&perPage=20"; fi
  for conns in 32 1; do
    bs=""; ms=""; bl=""; ml=""; bt=""; mt=""
    for i in $(seq $R); do
      read b b50 b99 <<<"$(run "$bu" x $conns)"; read m m50 m99 <<<"$(run "$mu" "$key" $conns)"
      bs="$bs $b"; ms="$ms $m"; bl="$bl $b99"; ml="$ml $m99"; bt="$bt $b50"; mt="$mt $m50"
    done
    if [ $conns = 32 ]; then
      echo "$what c=32: mock$ms req/s (p99 µs$ml); baseline$bs req/s (p99 µs$bl); ratio $(ratio "$(sum $ms)" "$(sum $bs)")"
    else
      echo "$what c=1: mock p50 µs$mt p99 µs$ml; baseline p50 µs$bt p99 µs$bl; p99 ratio $(ratio "$(sum $ml)" "$(sum $bl)")"
    fi
  done
done
echo "mock RSS: ${r0} MB before load, $(rss) MB after"

# ---- scale scenario --------------------------------------------------------------------------
# bench/wrk/scale.sh seeds a fresh mock with 1,000,000 patients and reports its RSS and list
# page 1 against the last page. It runs after the servers above are stopped.
kill $mp $bp 2>/dev/null; wait $mp $bp 2>/dev/null; mp=""; bp=""
[ "${SCALE:-1}" = 0 ] && exit 0
bash "$here/scale.sh" -mock "$mock" -d "$D"
