#!/usr/bin/env python3
"""A tour of the MedSpa mock server from Python, standard library only.

Start the mock (the binary, or the image: see docs/ci.md), then:

    MEDSPA_BASE_URL=http://127.0.0.1:8080 MEDSPA_API_KEY=msk_test_... python3 mock_tour.py

(MEDSPA_ADMIN_TOKEN too when the mock needs one: a listener that is not loopback-only.)
It waits on /readyz, creates a patient, arms a fault and sees it, reads the request journal,
and receives a webhook on a loopback receiver and verifies its signature (Standard Webhooks).
"""
import base64
import hashlib
import hmac
import http.server
import json
import os
import queue
import sys
import threading
import time
import urllib.error
import urllib.request

BASE = os.environ["MEDSPA_BASE_URL"].rstrip("/")
KEY = os.environ["MEDSPA_API_KEY"]
ADMIN_TOKEN = os.environ.get("MEDSPA_ADMIN_TOKEN", "")


def call(method, path, body=None, admin=False):
    """One request; returns (status, headers, parsed JSON or None). Errors are answers too."""
    headers = {"Accept": "application/json"}
    token = ADMIN_TOKEN if admin else KEY
    if token:
        headers["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            raw = resp.read()
            return resp.status, resp.headers, json.loads(raw) if raw else None
    except urllib.error.HTTPError as err:
        raw = err.read()
        return err.code, err.headers, json.loads(raw) if raw else None


def wait_ready(seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(BASE + "/readyz", timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    sys.exit("the mock never became ready at " + BASE + "/readyz")


def verify_signature(secret, headers, body, tolerance=300):
    """Standard Webhooks: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>, where key
    is the base64-decoded part of the secret after whsec_. Any one signature may match."""
    msg_id, ts = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(ts)) > tolerance:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()).decode()
    for sig in headers["webhook-signature"].split():
        version, _, value = sig.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return True
    return False


def start_receiver():
    """A webhook receiver on a loopback port: every delivery goes into the queue."""
    deliveries = queue.Queue()

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            deliveries.put(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, deliveries


def main():
    wait_ready()
    print("ready:", BASE)

    receiver, deliveries = start_receiver()
    url = "http://127.0.0.1:%d/hooks" % receiver.server_address[1]
    status, _, hook = call("POST", "/api/v1/webhooks", {"url": url, "events": ["patient.created"]})
    assert status == 201, (status, hook)

    status, _, patient = call("POST", "/api/v1/patients",
                              {"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com"})
    assert status == 201, (status, patient)
    print("created", patient["id"])

    headers, body = deliveries.get(timeout=15)
    assert verify_signature(hook["secret"], headers, body), "bad webhook signature"
    event = json.loads(body)
    assert event["type"] == "patient.created", event
    assert not verify_signature("whsec_" + base64.b64encode(b"x" * 24).decode(), headers, body)
    print("webhook", headers["webhook-id"], event["type"], "signature verified")

    path = "/api/v1/patients/" + patient["id"]
    status, _, _ = call("POST", "/__admin/faults", {"method": "GET", "path": path, "status": 503, "times": 1}, admin=True)
    assert status in (200, 201, 204), status
    status, _, problem = call("GET", path)
    assert status == 503 and problem["code"] == "service_unavailable", (status, problem)
    status, _, again = call("GET", path)
    assert status == 200 and again["id"] == patient["id"], (status, again)
    print("fault seen once: 503, then 200")

    status, _, journal = call("GET", "/__admin/requests", admin=True)
    assert status == 200, status
    mine = [e for e in journal["requests"] if e["path"] == path]
    assert [e["status"] for e in mine][-2:] == [503, 200], mine
    print("journal:", len(journal["requests"]), "requests, the fault among them")

    call("DELETE", "/api/v1/webhooks/" + hook["id"])
    receiver.shutdown()
    print("python tour: ok")


if __name__ == "__main__":
    main()
