#!/bin/bash
# Restart of the real binary on a data directory of 100,000 patients (issue 29's target: ≤ 1 s):
# the time from starting the process to the first answered GET /api/v1/patients/{id}. It seeds
# the directory through the admin fixtures endpoint (100 loads of 1,000 patients, each with
# notes, tags and an address, as BenchmarkRestart100k), stops the server cleanly (SIGTERM), then
# starts it ROUNDS times, polling every 5 ms. Loopback only; the directory is removed at the end.
#
#   bash bench/restart/run.sh [ROUNDS] [BINARY]     from the repository root (default 3; the
#                                                   binary built from this tree)
set -u
R=${1:-3}
fail() { echo "restart/run.sh: $*" >&2; exit 1; }
for c in curl python3; do command -v $c >/dev/null || fail "needs $c"; done
tmp=$(mktemp -d); pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
bin=${2:-}
if [ -z "$bin" ]; then
  [ -d cmd/medspa-mock ] || fail "run from the repository root, or name a binary"
  go build -o "$tmp/medspa-mock" ./cmd/medspa-mock || fail "build"
  bin=$tmp/medspa-mock
fi
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
base=http://127.0.0.1:$port
start() { "$bin" -data "$tmp/data" -addr 127.0.0.1:$port -quiet >>"$tmp/log" 2>&1 & pid=$!; }
stop() { kill -TERM $pid; wait $pid; pid=""; }

start
for i in $(seq 200); do curl -s -o /dev/null $base/healthz && break; sleep 0.05; done
resp=$(curl -sf -X POST -H 'Content-Type: application/json' -d '{"plan":"enterprise","scopes":["*"]}' $base/__admin/api-keys) || fail "admin api-keys"
read -r key acct < <(python3 -c 'import sys,json;d=json.loads(sys.argv[1]);print(d["key"],d["account"])' "$resp") || fail "api key: $resp"
python3 - "$acct" >"$tmp/fixtures.json" <<'PY'
import json, sys
print(json.dumps({"account": sys.argv[1], "patients": [{"firstName": "Restart%d" % j, "lastName": "Bench",
    "email": "r%d@example.com" % j, "notes": "n" * 100, "tags": ["a", "b"],
    "address": {"line1": "1 Replay Road", "city": "Logton", "country": "US"}} for j in range(1000)]}))
PY
for i in $(seq 100); do
  code=$(curl -s -o "$tmp/out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/fixtures.json" $base/__admin/fixtures)
  [ "$code" = 201 ] || fail "fixtures load $i: $code $(cat "$tmp/out")"
done
id=$(curl -sf -H "Authorization: Bearer $key" "$base/api/v1/patients?perPage=1" | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"][0]["id"])') || fail "list"
stop
echo "restart/run.sh: $("$bin" -version 2>&1 | head -1); data directory $(du -sh "$tmp/data" | cut -f1) with 100,000 patients"
for r in $(seq "$R"); do
  t0=$(date +%s%N)
  start
  until [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" $base/api/v1/patients/$id)" = 200 ]; do
    kill -0 $pid 2>/dev/null || fail "the server stopped: $(tail -3 "$tmp/log")"
    sleep 0.005
  done
  t1=$(date +%s%N)
  echo "restart $r: $(( (t1 - t0) / 1000000 )) ms to the first answered GET (load average $(cut -d' ' -f1 /proc/loadavg))"
  stop
done
