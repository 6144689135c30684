// A tour of the MedSpa mock server from Node (18 or later), no dependencies.
//
// Start the mock (the binary, or the image: see docs/ci.md), then:
//
//   MEDSPA_BASE_URL=http://127.0.0.1:8080 MEDSPA_API_KEY=msk_test_... node mock_tour.mjs
//
// (MEDSPA_ADMIN_TOKEN too when the mock needs one: a listener that is not loopback-only.)
// It waits on /readyz, creates a patient, arms a fault and sees it, reads the request journal,
// and receives a webhook on a loopback receiver and verifies its signature (Standard Webhooks).
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import assert from "node:assert/strict";

const BASE = process.env.MEDSPA_BASE_URL.replace(/\/+$/, "");
const KEY = process.env.MEDSPA_API_KEY;
const ADMIN_TOKEN = process.env.MEDSPA_ADMIN_TOKEN ?? "";

// call sends one request; errors are answers too.
async function call(method, path, body, { admin = false } = {}) {
  const headers = { Accept: "application/json" };
  const token = admin ? ADMIN_TOKEN : KEY;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(BASE + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15000),
  });
  const text = await resp.text();
  return { status: resp.status, json: text ? JSON.parse(text) : null };
}

async function waitReady(seconds = 20) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(BASE + "/readyz")).status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the mock never became ready at ${BASE}/readyz`);
}

// verifySignature: Standard Webhooks, v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>,
// where key is the base64-decoded part of the secret after whsec_. Any one signature may match.
function verifySignature(secret, headers, body, toleranceSeconds = 300) {
  const id = headers["webhook-id"], ts = headers["webhook-timestamp"];
  if (Math.abs(Date.now() / 1000 - Number(ts)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${ts}.`).update(body).digest();
  return headers["webhook-signature"].split(" ").some((sig) => {
    const [version, value] = sig.split(",");
    const got = Buffer.from(value ?? "", "base64");
    return version === "v1" && got.length === expected.length && timingSafeEqual(got, expected);
  });
}

// startReceiver: a webhook receiver on a loopback port; next() resolves with the next delivery.
async function startReceiver() {
  const waiting = [], received = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const delivery = { headers: req.headers, body: Buffer.concat(chunks) };
      res.writeHead(204).end();
      const w = waiting.shift();
      w ? w(delivery) : received.push(delivery);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const next = () => received.length ? Promise.resolve(received.shift())
    : Promise.race([new Promise((r) => waiting.push(r)),
      new Promise((_, reject) => setTimeout(() => reject(new Error("no webhook in 15 s")), 15000).unref())]);
  return { server, url: `http://127.0.0.1:${server.address().port}/hooks`, next };
}

await waitReady();
console.log("ready:", BASE);

const receiver = await startReceiver();
const hook = await call("POST", "/api/v1/webhooks", { url: receiver.url, events: ["patient.created"] });
assert.equal(hook.status, 201, JSON.stringify(hook.json));

const created = await call("POST", "/api/v1/patients", { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com" });
assert.equal(created.status, 201, JSON.stringify(created.json));
const patient = created.json;
console.log("created", patient.id);

const delivery = await receiver.next();
assert.ok(verifySignature(hook.json.secret, delivery.headers, delivery.body), "bad webhook signature");
const event = JSON.parse(delivery.body);
assert.equal(event.type, "patient.created");
assert.ok(!verifySignature("whsec_" + Buffer.alloc(24, 1).toString("base64"), delivery.headers, delivery.body));
console.log("webhook", delivery.headers["webhook-id"], event.type, "signature verified");

const path = `/api/v1/patients/${patient.id}`;
const armed = await call("POST", "/__admin/faults", { method: "GET", path, status: 503, times: 1 }, { admin: true });
assert.ok([200, 201, 204].includes(armed.status), String(armed.status));
const failed = await call("GET", path);
assert.equal(failed.status, 503);
assert.equal(failed.json.code, "service_unavailable");
const again = await call("GET", path);
assert.equal(again.status, 200);
assert.equal(again.json.id, patient.id);
console.log("fault seen once: 503, then 200");

const journal = await call("GET", "/__admin/requests", undefined, { admin: true });
assert.equal(journal.status, 200);
const mine = journal.json.requests.filter((e) => e.path === path).map((e) => e.status);
assert.deepEqual(mine.slice(-2), [503, 200]);
console.log("journal:", journal.json.requests.length, "requests, the fault among them");

await call("DELETE", `/api/v1/webhooks/${hook.json.id}`);
receiver.server.close();
console.log("node tour: ok");
