# Issue 32 figures (SECURITY.md "Third review"): go build -o /tmp/mock ./cmd/medspa-mock, then
# python3 bench/review32/measure.py /tmp/mock unknown60k   (time and size of the 422)
# python3 bench/review32/measure.py /tmp/mock keyed400     (RSS before and after)
import http.client, json, subprocess, sys, time, re, os
def start(binary):
    p = subprocess.Popen([binary, "-addr", "127.0.0.1:0", "-quiet"], stdout=subprocess.PIPE, text=True)
    base = key = None
    for line in p.stdout:
        if line.startswith("MEDSPA_BASE_URL="): base = line.split("=",1)[1].strip()
        if line.startswith("MEDSPA_API_KEY="): key = line.split("=",1)[1].strip()
        if line.startswith("account="): break
    return p, base, key
def rss(pid):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1])//1024
def body(n):
    return '{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"' + "".join(f',"k{i}":1' for i in range(1,n+1)) + "}"
def conn(base):
    host = base.split("//")[1]
    h, port = host.rsplit(":",1)
    return http.client.HTTPConnection(h, int(port), timeout=600)
def post(c, key, b, idem=None):
    hdr = {"Authorization": "Bearer "+key, "Content-Type": "application/json"}
    if idem: hdr["Idempotency-Key"] = idem
    c.request("POST", "/api/v1/patients", body=b, headers=hdr)
    r = c.getresponse(); data = r.read()
    return r.status, data
binary, mode = sys.argv[1], sys.argv[2]  # a medspa-mock binary; unknown60k or keyed400
p, base, key = start(binary)
try:
    c = conn(base)
    if mode == "unknown60k":
        b = body(60000)
        t = time.time()
        try:
            st, data = post(c, key, b)
        except Exception as e:
            print(f"{binary}: N=60000 body {len(b)} B -> {e!r} after {time.time()-t:.1f} s"); sys.exit()
        dt = time.time()-t
        print(f"{binary}: N=60000 body {len(b)} B -> {st}, answer {len(data)} B in {dt:.2f} s")
    elif mode.startswith("keyed"):
        n, keys = {"keyed400": (400, 1900), "keyed10k": (10000, 150)}[mode]
        b = body(keys)
        r0 = rss(p.pid)
        size = 0
        for i in range(n):
            st, data = post(c, key, b, f"k-{i}"); size = len(data)
        time.sleep(2)
        print(f"{binary}: {n} keyed POSTs, {keys} unknown keys each, 422 answer {size} B: RSS {r0} MB -> {rss(p.pid)} MB")
finally:
    p.kill()
