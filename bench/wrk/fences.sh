#!/bin/bash
# The end-to-end gain of each fenced optimisation (issue 28: a fence is kept only if its gain
# measured from outside is at least 3 %): the mock's throughput with the fast path (HEAD, "kept")
# against the same tree with one fast path turned back into the plain code its Fence benchmark
# compares against (bench/wrk/fences/NAME.patch, a `git diff` against main), alternating in one
# run so that the ratios hold on a noisy machine.
#
#   bash bench/wrk/fences.sh [SECONDS] [ROUNDS] [NAMES...]     from the repository root
#
#   SECONDS  per wrk measurement (default 5); ROUNDS  alternating rounds (default 3)
#   NAMES    patches to measure (default: every bench/wrk/fences/*.patch), each the plain side
#            of a Fence benchmark in the server:
#              encoders   patients encoded by encoding/json (httpapi/encode.go; BenchmarkFenceEncoders)
#              ratelimit  each rate-limit value formatted and set on its own (httpapi/mw_ratelimit.go
#                         setLimitHeaders; BenchmarkFenceRateLimitHeaders)
#              phicodec   new PHI sealed in 0.1.0's JSON form, opened by json.Unmarshal
#                         (store/patients.go sealPatient; BenchmarkFencePHICodec)
#              audithash  the audit hash over encoding/json's output of a map (audit/audit.go
#                         canonicalSum; BenchmarkFenceAuditHash)
#              jsoncheck  the token walk for every body (httpapi/jsoncheck.go checkJSON;
#                         BenchmarkFenceCheckJSON)
#            Two more kinds of name put other trees into the same alternation:
#              rev:REV    the tree at commit REV, unpatched (the code before a change)
#              env:V=X    HEAD's tree run with the environment variable V=X (wrk-ratio.sh's
#                         bare server gets it too)
#   WRK_RATIO=path   the GET script run in each tree (default ../shared/bench/wrk-ratio.sh, taken
#                    relative to the repository root): it builds the tree's mock and a bare
#                    net/http server, and prints the mock's get-by-id and list ratios to the bare
#                    server ("get: … ratio R", "list: … ratio R")
#
# It makes a temporary `git worktree` of HEAD (committed code; the patches are read from this
# tree) per variant, plus HEAD unpatched as "kept", and applies each patch (three-way when its
# context moved; a patch that no longer applies stops the run, named). Each round runs WRK_RATIO
# in every tree in turn (kept, a, b, …), then, for kept and the variants writes exercise
# (phicodec, audithash, jsoncheck), POSTs a full patient body (every field) to /api/v1/patients
# with wrk for SECONDS (32 connections, after 1 s of warm-up) against a fresh mock of each tree
# in turn (a custom-plan key whose limits never bind, no Idempotency-Key). It prints one
# table: per variant the get and list ratios of each round, their means, and the fence's gain
# (mean kept − mean variant) ÷ mean kept; then the POST req/s of each round, the ratio
# variant ÷ kept (sums over the rounds) and the gain 1 − ratio. A positive gain is what the fast
# path buys end to end; progress lines (stderr) give each measurement as it comes. Time: a round
# is (1 + NAMES) wrk-ratio.sh runs (each builds, seeds 1,000 patients one curl at a time, then
# 9 × SECONDS of wrk) plus up to 4 × (SECONDS + 2 s) of POSTs; at 3 s on the shared 2-core
# machine, load average 4–7.5, one round took 33 min (2026-11-27: under a minute for the first
# tree, 5–7 for the others, mostly the seeding). Loopback only. Needs git, wrk, curl, python3, go.
set -u
D=${1:-5}
R=${2:-3}
shift $(( $# < 2 ? $# : 2 ))
fail() { echo "wrk/fences.sh: $*" >&2; exit 1; }
for c in git wrk curl python3 go; do command -v $c >/dev/null || fail "needs $c"; done
[ -d cmd/medspa-mock ] && [ -d bench/wrk/fences ] || fail "run from the repository root"
case "$D$R" in *[!0-9]*) fail "SECONDS and ROUNDS are whole numbers (got '$D' '$R')" ;; esac
root=$(pwd)
ratio_script=${WRK_RATIO:-../shared/bench/wrk-ratio.sh}
[ -f "$ratio_script" ] || fail "no $ratio_script (set WRK_RATIO to the path of wrk-ratio.sh)"
ratio_script=$(cd "$(dirname "$ratio_script")" && pwd)/$(basename "$ratio_script")

names=("$@")
if [ ${#names[@]} = 0 ]; then
  for p in bench/wrk/fences/*.patch; do names+=("$(basename "$p" .patch)"); done
fi
for n in "${names[@]}"; do
  case $n in
  rev:*) git rev-parse -q --verify "${n#rev:}^{commit}" >/dev/null || fail "no commit '${n#rev:}' ($n)" ;;
  env:*=*) ;;
  *) [ "$n" != kept ] && [ -f "bench/wrk/fences/$n.patch" ] ||
    fail "no patch named '$n' (have: $(cd bench/wrk/fences && ls *.patch | sed 's/\.patch$//' | tr '\n' ' '); or rev:REV, env:V=X)" ;;
  esac
done
variants=(kept "${names[@]}")
posts=(kept) # the variants writes exercise, measured by POST too
for n in "${names[@]}"; do case $n in phicodec | audithash | jsoncheck) posts+=("$n") ;; esac; done

# dir V is the tree of variant V (an env: variant runs kept's); envof V its environment.
dir() { case $1 in env:*) echo "$tmp/kept" ;; *) echo "$tmp/$(tr -c 'A-Za-z0-9_\n' _ <<<"$1")" ;; esac; }
envof() { case $1 in env:*) echo "${1#env:}" ;; *) echo "MEDSPA_FENCES_VARIANT=$1" ;; esac; }

tmp=$(mktemp -d)
mp=""
cleanup() {
  [ -n "$mp" ] && kill "$mp" 2>/dev/null
  for v in "${variants[@]}"; do [ -d "$(dir "$v")" ] && git worktree remove --force "$(dir "$v")" >/dev/null 2>&1; done
  git worktree prune
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for v in "${variants[@]}"; do
  case $v in
  env:*) continue ;;
  rev:*) rev=${v#rev:} ;;
  *) rev=HEAD ;;
  esac
  git worktree add --detach "$(dir "$v")" "$rev" >/dev/null 2>&1 || fail "git worktree add $(dir "$v")"
  case $v in kept | rev:*) continue ;; esac
  git -C "$(dir "$v")" apply --3way "$root/bench/wrk/fences/$v.patch" >"$tmp/apply-$v.log" 2>&1 ||
    fail "bench/wrk/fences/$v.patch no longer applies to HEAD ($(git rev-parse --short HEAD)), even three-way: remake it (git diff main): $(cat "$tmp/apply-$v.log")"
done
mkdir -p "$tmp/bin"
for v in "${variants[@]}"; do
  (cd "$(dir "$v")" && go build -o "$(dir "$v").bin" ./cmd/medspa-mock) || fail "build of variant $v"
done

port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
# A create body with every field, one email per request (wrk's threads count apart).
cat >"$tmp/post.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
local threads = 0
setup = function(thread) threads = threads + 1; thread:set("tid", threads) end
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, string.format(
    '{"firstName":"Ada","lastName":"Lovelace","email":"ada%d.%d@example.com","phone":"+15551234567",' ..
    '"dateOfBirth":"1980-02-29","gender":"female","address":{"line1":"1 Main St","line2":"Suite 2",' ..
    '"city":"Springfield","state":"IL","postalCode":"62701","country":"US"},"allergies":["latex","penicillin"],' ..
    '"notes":"first visit","tags":["vip"]}', tid or 0, n))
end
EOF
# post V sets q to the req/s of a fresh mock of variant V under the POST load.
post() {
  local p key out
  p=$(port)
  env "$(envof "$1")" "$(dir "$1").bin" -addr 127.0.0.1:$p >"$tmp/post.log" 2>&1 & mp=$!
  for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$p/healthz" && break; sleep 0.1; done
  key=$(curl -sf -H 'Content-Type: application/json' \
    -d '{"plan":"custom","ratePerMinute":1000000000,"burst":1000000000,"daily":0,"scopes":["*"]}' \
    "http://127.0.0.1:$p/__admin/api-keys" | python3 -c 'import sys,json;print(json.load(sys.stdin)["key"])') ||
    fail "admin api-keys ($1)"
  wrk -t2 -c32 -d1s -s "$tmp/post.lua" -H "Authorization: Bearer $key" "http://127.0.0.1:$p/api/v1/patients" >/dev/null # warm-up
  out=$(wrk -t2 -c32 -d${D}s -s "$tmp/post.lua" -H "Authorization: Bearer $key" "http://127.0.0.1:$p/api/v1/patients" 2>&1)
  kill $mp; wait $mp 2>/dev/null; mp=""
  grep -q 'Non-2xx' <<<"$out" && fail "POST $1: $(grep Non-2xx <<<"$out")"
  q=$(awk '/Requests\/sec/{print $2}' <<<"$out")
  [ -n "$q" ] || fail "POST $1: no req/s in wrk's output: $out"
}

echo "fences.sh: HEAD $(git rev-parse --short HEAD); $D s per measurement, $R rounds; variants ${variants[*]}; POST: ${posts[*]}"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
res="$tmp/results"
: >"$res"
for r in $(seq "$R"); do
  t0=$(date +%s)
  for v in "${variants[@]}"; do
    t1=$(date +%s)
    out=$(cd "$(dir "$v")" && env "$(envof "$v")" bash "$ratio_script" "$D" 2>&1) || fail "wrk-ratio in $v: $out"
    grep -qi 'non-2xx' <<<"$out" && fail "wrk-ratio in $v: $out"
    g=$(awk '/^get:/{print $NF}' <<<"$out"); l=$(awk '/^list:/{print $NF}' <<<"$out")
    [ -n "$g" ] && [ -n "$l" ] && [ "$g" != 0.0 ] && [ "$l" != 0.0 ] || fail "wrk-ratio in $v gave no ratio: $out"
    echo "get $v $r $g" >>"$res"; echo "list $v $r $l" >>"$res"
    echo "  round $r $v: get $g, list $l ($(( $(date +%s) - t1 )) s, load $(cut -d' ' -f1 /proc/loadavg))" >&2
  done
  if [ ${#posts[@]} -gt 1 ]; then
    for v in "${posts[@]}"; do
      post "$v"
      echo "post $v $r $q" >>"$res"
      echo "  round $r $v: POST $q req/s" >&2
    done
  fi
  echo "  round $r took $(( $(date +%s) - t0 )) s" >&2
done

python3 - "$res" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
def vals(what, v): return [float(x[3]) for x in rows if x[0] == what and x[1] == v]
def mean(xs): return sum(xs) / len(xs)
def names(what): return list(dict.fromkeys(x[1] for x in rows if x[0] == what))
def gain(k, x): return "%+.1f%%" % (100 * (k - x) / k)
n = len(vals("get", "kept"))
rounds = "".join("%-7s" % ("r%d" % (i + 1)) for i in range(n))
print("\nratio to the bare server (wrk-ratio.sh); gain = (mean kept - mean variant) / mean kept")
print("%-14s | get  %s%-7s%-8s | list %s%-7s%s" % ("variant", rounds, "mean", "gain", rounds, "mean", "gain"))
for v in names("get"):
    line = "%-14s" % v
    for what in ("get", "list"):
        xs, k = vals(what, v), mean(vals(what, "kept"))
        line += " | %s%s%-7.3f%-8s" % (" " * 5, "".join("%-7.3f" % x for x in xs), mean(xs),
                                     "" if v == "kept" else gain(k, mean(xs)))
    print(line.rstrip())
if names("post"):
    k = vals("post", "kept")
    print("\nPOST /api/v1/patients, full body, req/s; ratio = sum variant / sum kept; gain = 1 - ratio")
    print("%-14s | %s%-7s%s" % ("variant", "".join("%-9s" % ("r%d" % (i + 1)) for i in range(n)), "ratio", "gain"))
    for v in names("post"):
        xs = vals("post", v)
        tail = "" if v == "kept" else "%-7.3f%s" % (sum(xs) / sum(k), gain(sum(k), sum(xs)))
        print(("%-14s | %s%s" % (v, "".join("%-9.0f" % x for x in xs), tail)).rstrip())
EOF
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
