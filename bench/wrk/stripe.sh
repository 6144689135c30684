#!/bin/bash
# The mock server against stripe-mock (Stripe's own mock, stateless, answers from its OpenAPI
# fixtures), measured from outside with the same load generator in one run: GET by id and a list
# page of 20 on each side, 32 connections, two alternating rounds. Our side runs its full stack
# (credentials, rate limit, audit, journal, sealed PHI) over 1,000 patients; stripe-mock answers
# GET /v1/customers/cus_123 and GET /v1/customers?limit=20.
#
#   bash bench/wrk/stripe.sh [SECONDS]      from the repository root (default 5)
#
# Loopback only. Needs wrk, curl, python3 and go (stripe-mock is built from its module, pinned).
set -u
D=${1:-5}
STRIPE_MOCK=github.com/stripe/stripe-mock@v0.203.0
fail() { echo "wrk/stripe.sh: $*" >&2; exit 1; }
for c in wrk curl python3 go; do command -v $c >/dev/null || fail "needs $c"; done
[ -d cmd/medspa-mock ] || fail "run from the repository root"
tmp=$(mktemp -d); mp=""; sp=""
trap '[ -n "$mp" ] && kill $mp 2>/dev/null; [ -n "$sp" ] && kill $sp 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/mock" ./cmd/medspa-mock || fail "build mock"
GOBIN="$tmp" go install "$STRIPE_MOCK" || fail "build stripe-mock"
port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
mport=$(port); sport=$(port)
"$tmp/mock" -addr 127.0.0.1:$mport >/dev/null 2>&1 & mp=$!
"$tmp/stripe-mock" -http-port $sport >/dev/null 2>&1 & sp=$!
for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$mport/healthz" && curl -s -o /dev/null -H "Authorization: Bearer sk_test_123" "http://127.0.0.1:$sport/v1/customers/cus_123" && break; sleep 0.2; done
key=$(curl -s -X POST -H 'Content-Type: application/json' -d '{"plan":"custom","ratePerMinute":1000000000,"burst":1000000000,"daily":0,"scopes":["*"]}' \
  "http://127.0.0.1:$mport/__admin/api-keys" | python3 -c 'import sys,json;print(json.load(sys.stdin)["key"])') || fail "admin api-keys"
go run ./bench/seed -url "http://127.0.0.1:$mport" -key "$key" -patients 1000 >/dev/null || fail "seed"
pid=$(curl -s -H "Authorization: Bearer $key" "http://127.0.0.1:$mport/api/v1/patients?perPage=1" | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"][0]["id"])') || fail "list"
run() { wrk -t2 -c32 -d${D}s -H "Authorization: Bearer $2" "$1" | awk '/Requests\/sec/{print $2}'; }
echo "load average $(cut -d' ' -f1-3 /proc/loadavg); $D s per measurement"
for what in get list; do
  if [ $what = get ]; then mu="http://127.0.0.1:$mport/api/v1/patients/$pid"; su="http://127.0.0.1:$sport/v1/customers/cus_123"
  else mu="http://127.0.0.1:$mport/api/v1/patients?page=3&perPage=20"; su="http://127.0.0.1:$sport/v1/customers?limit=20"; fi
  run "$su" sk_test_123 >/dev/null # warm-up
  s1=$(run "$su" sk_test_123); m1=$(run "$mu" "$key"); s2=$(run "$su" sk_test_123); m2=$(run "$mu" "$key")
  echo "$what: medspa-mock $m1,$m2 req/s; stripe-mock $s1,$s2 req/s; ratio $(python3 -c "print(round(($m1+$m2)/max($s1+$s2,1),2))")"
done
