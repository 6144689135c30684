#!/bin/sh
# Makes testdata/datadir-0.2: a data directory written by the 0.2 binary (its segment log),
# for TestImportsDataDir02. Run from cmd/medspa-mock with the 0.2 binary as $1 (built from
# commit 7f0b638: go build -o /tmp/medspa-mock-0.2 ./cmd/medspa-mock). Synthetic data only.
set -eu
BIN=${1:-/tmp/medspa-mock-0.2}
OUT=testdata/datadir-0.2
PHI=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
rm -rf "$OUT"
"$BIN" -data "$OUT" -phi-key "$PHI" -seed 29 -start 2026-03-01T09:00:00Z -addr 127.0.0.1:18929 \
	-private-webhooks -quiet >/tmp/make-datadir.out 2>&1 &
PID=$!
sleep 3
M=http://127.0.0.1:18929
KEY=$(sed -n 's/.*"key":"\([^"]*\)".*/\1/p' "$OUT/api-key")
ACCT=$(sed -n 's/.*"account":"\([^"]*\)".*/\1/p' "$OUT/api-key")
j() { curl -sf -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' "$@"; }
a() { curl -sf -H 'Content-Type: application/json' "$@"; }
id() { sed -n 's/^{"id":"\([^"]*\)".*/\1/p'; }
P1=$(j $M/api/v1/patients -H 'Idempotency-Key: import-key-1' -d '{"firstName":"Importfirst","lastName":"Importlast","email":"import.one@example.test","phone":"+15550100011","dateOfBirth":"1991-05-02","notes":"import note one","address":{"line1":"2 Import Road","city":"Nowhere","country":"US"}}' | id)
P2=$(j $M/api/v1/patients -d '{"firstName":"Secondfirst","lastName":"Secondlast","email":"import.two@example.test","notes":"import note two"}' | id)
j $M/api/v1/patients -d '{"firstName":"Thirdfirst","lastName":"Thirdlast","email":"import.three@example.test"}' >/dev/null
j $M/api/v1/appointments -d '{"patientId":"'$P1'","providerId":"prv_1","service":"Botox","startAt":"2026-03-02T10:00:00Z","endAt":"2026-03-02T10:30:00Z","notes":"import appointment note"}' >/dev/null
INV=$(j $M/api/v1/invoices -d '{"patientId":"'$P2'","lineItems":[{"description":"x","quantity":1,"unitAmount":10000}]}' | id)
j $M/api/v1/payments -d '{"invoiceId":"'$INV'","amount":10000,"method":"card","cardToken":"tok_visa"}' >/dev/null
# A webhook endpoint whose deliveries fail (nothing listens on port 9): a retry stays pending.
j $M/api/v1/webhooks -d '{"url":"http://127.0.0.1:9/hook","events":["*"]}' >/dev/null
j $M/api/v1/patients/$P2 -X PATCH -H 'Content-Type: application/merge-patch+json' -d '{"notes":"import note two, patched"}' >/dev/null
a $M/__admin/api-keys -d '{"plan":"starter","scopes":["patients:read"],"account":"'$ACCT'"}' >"$OUT.key2.json"
a $M/__admin/oauth-clients -d '{"plan":"starter","scopes":["patients:read"],"account":"'$ACCT'"}' >"$OUT.oauth.json"
a $M/__admin/snapshots -d '{"account":"'$ACCT'","name":"imported"}'
a $M/__admin/clock -d '{"now":"2026-03-01T10:00:00Z","account":"'$ACCT'"}' >/dev/null
sleep 2
kill -TERM $PID
wait $PID || true
mv "$OUT.key2.json" "$OUT.oauth.json" testdata/ 2>/dev/null || true
echo "account $ACCT key $KEY patients $P1 $P2 invoice $INV"
