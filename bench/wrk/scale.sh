#!/bin/bash
# The scale scenario (issue 21, BENCHMARKS.md "Scale: 1,000,000 patients"): the standalone mock
# seeded with many patients in one account, its memory, and how a list page's cost depends on
# its depth.
#
#   bash bench/wrk/scale.sh [-n PATIENTS] [-via fixtures|api] [-d SECONDS] [-c CONNS] [-mock BINARY] [-heap FILE]
#
# Run from the project root. It builds cmd/medspa-mock (or runs BINARY, e.g. an older build for
# a before/after in one sitting) with its defaults, loopback only, and seeds PATIENTS (default
# 1,000,000) over HTTP with bench/seed: by default as admin fixtures, 10,000 to a POST
# /__admin/fixtures (each load one transaction through the store's rules and PHI sealing); with
# -via api by POST /api/v1/patients, one patient a request (every rule, PHI sealing, audit and
# journal, as for any client; no Idempotency-Key, as a one-off seeding script sends none).
# It prints the mock's RSS after seeding (and its peak), then at rest after a forced GC, then
# measures GET /api/v1/patients?perPage=20 on page 1 and on the last page with wrk (CONNS
# connections, default 32, SECONDS per run, default 5, two alternating rounds each): req/s,
# p50/p99 latency, and the ratios first/last. -heap writes the at-rest heap profile to FILE.
# Needs wrk, curl and python3.
set -u
N=1000000 D=5 C=32 MOCK="" HEAP="" VIA=fixtures
while [ $# -gt 0 ]; do
  case $1 in
    -n) N=$2; shift 2 ;;
    -via) VIA=$2; shift 2 ;;
    -d) D=$2; shift 2 ;;
    -c) C=$2; shift 2 ;;
    -mock) MOCK=$2; shift 2 ;;
    -heap) HEAP=$2; shift 2 ;;
    *) echo "usage: $0 [-n PATIENTS] [-via fixtures|api] [-d SECONDS] [-c CONNS] [-mock BINARY] [-heap FILE]" >&2; exit 2 ;;
  esac
done
fail() { echo "scale: $*" >&2; exit 1; }
command -v wrk >/dev/null || fail "no wrk (apt-get install wrk)"
[ -d cmd/medspa-mock ] || fail "run from the project root"
tmp=$(mktemp -d); mp=""; trap '[ -n "$mp" ] && kill $mp 2>/dev/null && wait $mp; rm -rf "$tmp"' EXIT
if [ -z "$MOCK" ]; then go build -o "$tmp/mock" ./cmd/medspa-mock || fail "build mock"; MOCK=$tmp/mock; fi
go build -o "$tmp/seed" ./bench/seed || fail "build seed"
port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
mport=$(port); pport=$(port)
base=http://127.0.0.1:$mport
"$MOCK" -addr 127.0.0.1:$mport -quiet -pprof 127.0.0.1:$pport >"$tmp/mock.log" 2>&1 & mp=$!
for i in $(seq 100); do curl -s -o /dev/null "$base/api/v1/openapi.yaml" && break; sleep 0.1; done
json() { python3 -c "import sys,json;print(json.load(sys.stdin)$1)"; }
created=$(curl -s -X POST -H 'Content-Type: application/json' \
  -d '{"plan":"custom","ratePerMinute":1000000000,"burst":1000000000,"daily":0,"scopes":["*"]}' \
  "$base/__admin/api-keys") || fail "admin api-keys"
key=$(json '["key"]' <<<"$created") && account=$(json '["account"]' <<<"$created") || fail "admin api-keys: $created"
mib() { awk -v f="$1:" '$1==f{printf "%.1f", $2/1024}' /proc/$mp/status; }
echo "mock RSS empty: $(mib VmRSS) MiB"
case $VIA in
  fixtures) "$tmp/seed" -url "$base" -key "$key" -patients "$N" -batch 10000 -account "$account" -c 2 || fail "seed" ;;
  api) "$tmp/seed" -url "$base" -key "$key" -patients "$N" || fail "seed" ;;
  *) fail "-via fixtures or api" ;;
esac
echo "mock RSS after seeding: $(mib VmRSS) MiB (peak during seeding $(mib VmHWM) MiB)"
# ?gc=1 runs a garbage collection before the profile; the scavenger then returns freed pages.
curl -s -o "$tmp/heap.pb.gz" "http://127.0.0.1:$pport/debug/pprof/heap?gc=1" || fail "heap profile"
sleep 5
echo "mock RSS at rest after a GC: $(mib VmRSS) MiB"
[ -n "$HEAP" ] && cp "$tmp/heap.pb.gz" "$HEAP"
total=$(curl -s -H "Authorization: Bearer $key" "$base/api/v1/patients?perPage=1" | json '["meta"]["total"]') || fail "list"
[ "$total" = "$N" ] || fail "total $total, want $N"
last=$(( (N + 19) / 20 ))
run() {
  wrk -t2 -c"$C" -d"${D}s" --latency -H "Authorization: Bearer $key" "$1" >"$tmp/w.out"
  grep -q 'Non-2xx' "$tmp/w.out" && fail "non-2xx under load: $(grep Non-2xx "$tmp/w.out")"
  echo "$(awk '/Requests\/sec/{print $2}' "$tmp/w.out") $(awk '$1=="50%"{print $2}' "$tmp/w.out") $(awk '$1=="99%"{print $2}' "$tmp/w.out")"
}
first_url="$base/api/v1/patients?page=1&perPage=20"
last_url="$base/api/v1/patients?page=$last&perPage=20"
[ "$(curl -s -H "Authorization: Bearer $key" "$last_url" | json '["data"].__len__()')" -ge 1 ] || fail "last page empty"
run "$first_url" >/dev/null # warm-up
read f1 f50a f99a <<<"$(run "$first_url")"; read l1 l50a l99a <<<"$(run "$last_url")"
read f2 f50b f99b <<<"$(run "$first_url")"; read l2 l50b l99b <<<"$(run "$last_url")"
echo "page 1:       $f1,$f2 req/s (p50 $f50a,$f50b; p99 $f99a,$f99b)"
echo "page $last: $l1,$l2 req/s (p50 $l50a,$l50b; p99 $l99a,$l99b)"
ms() { python3 -c "import re,sys;v,u=re.match(r'([0-9.]+)(\w+)',sys.argv[1]).groups();print(float(v)*{'us':0.001,'ms':1,'s':1000}[u])" "$1"; }
echo "throughput page 1 / last page: $(python3 -c "print(round(($f1+$f2)/max($l1+$l2,1),3))")"
echo "p50 latency last page / page 1: $(python3 -c "print(round(($(ms $l50a)+$(ms $l50b))/($(ms $f50a)+$(ms $f50b)),3))")"
echo "mock RSS after the runs: $(mib VmRSS) MiB"
