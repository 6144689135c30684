#!/bin/bash
# What a given amount of extra work per request costs a bare net/http server, measured from
# outside with wrk (issue 21): the baseline (bench/wrk/baseline) answering GET /api/v1/patients/{id}
# at 32 connections, with every request first busy-waiting 0, 1, 2, 3, 4, 6 and 8 µs (-work),
# alternating in rounds so that the ratios hold on a noisy machine; and the protocol floor
# (-floor, bench/wrk/baseline/floor.go): the same server doing, in each request, only the work
# the mock's protocol requires (credential digest, token bucket and rate-limit headers, request
# id, chained audit event, journal entry, log line, sealed PHI opened), with no pipeline. It
# prints, per row, req/s, the server's CPU per request (µs, from /proc) and the ratio to the plain
# server: the budget of work a server may add per request and stay at a given share of the
# baseline's throughput, and how much of it the protocol's required work takes by itself.
#
#   bash bench/wrk/budget.sh [SECONDS] [ROUNDS]      from the repository root (defaults 5 and 2)
#
# Loopback only. Needs wrk, curl, python3 and go.
set -u
D=${1:-5}
R=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "wrk/budget.sh: $*" >&2; exit 1; }
for c in wrk curl python3 go; do command -v $c >/dev/null || fail "needs $c"; done
tmp=$(mktemp -d)
bp=""
trap '[ -n "$bp" ] && kill $bp 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/base" "$here/baseline" || fail "build baseline"
port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
works="0 1us 2us 3us 4us 6us 8us floor"
declare -A reqs cpu
echo "baseline with busy work per request; $D s per measurement, $R rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$R"); do
  for w in $works; do
    p=$(port)
    if [ "$w" = floor ]; then flags="-floor"; else flags="-work $w"; fi
    "$tmp/base" -addr 127.0.0.1:$p -token x -n 1000 $flags >/dev/null 2>&1 & bp=$!
    for i in $(seq 100); do curl -s -o /dev/null -H "Authorization: Bearer x" "http://127.0.0.1:$p/api/v1/patients" && break; sleep 0.1; done
    u="http://127.0.0.1:$p/api/v1/patients/pat_01J8ZK3Q4V6W7X8Y9Z0A1B0001"
    wrk -t2 -c32 -d1s -H "Authorization: Bearer x" "$u" >/dev/null # warm-up
    c0=$(awk '{print $14+$15}' /proc/$bp/stat)
    n=$(wrk -t2 -c32 -d${D}s -H "Authorization: Bearer x" "$u" | awk '/requests in/{print $1}')
    c1=$(awk '{print $14+$15}' /proc/$bp/stat)
    kill $bp; wait $bp 2>/dev/null; bp=""
    reqs[$w]="${reqs[$w]:-} $n"; cpu[$w]="${cpu[$w]:-} $((c1 - c0))"
  done
done
for w in $works; do
  python3 -c "
n=[int(x) for x in '${reqs[$w]}'.split()]; c=[int(x) for x in '${cpu[$w]}'.split()]
n0=[int(x) for x in '${reqs[0]}'.split()]
print('work %-4s %8.0f req/s  %5.1f µs CPU/request  ratio %.3f' % ('$w', sum(n)/len(n)/$D, sum(c)*1e4/sum(n), sum(n)/sum(n0)))
"
done
