package main

import (
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// kind is one kind of unit of the mix.
type kind int

const (
	readPatient kind = iota
	listPatients
	createPatient
	createAppointment
	adjustInventory
	denyLongPath
	oauthFlow
	kinds
)

// mix is the load: each unit is drawn with its weight (out of 100). A unit is one request,
// except an OAuth flow (3 requests, 4 when it revokes). The read account is seeded once and
// never reset; the write account has a webhook endpoint for every event type, so every write
// is also a webhook delivery back to this process.
var mix = [kinds]struct {
	name   string
	weight int
	does   string
}{
	readPatient:       {"read patient", 34, "GET /api/v1/patients/{id} (PHI read, audited): 200"},
	listPatients:      {"list patients q", 12, "GET /api/v1/patients?q=…&perPage=20 (PHI list, audited): 200"},
	createPatient:     {"create patient", 10, "POST /api/v1/patients, every PHI field (webhook): 201"},
	createAppointment: {"create appointment", 8, "POST /api/v1/appointments, a fresh slot (webhook): 201"},
	adjustInventory:   {"adjust inventory", 8, "POST /api/v1/inventory/adjust +1 received (webhook): 201"},
	denyLongPath:      {"401 long path", 20, "GET /api/v1/patients/<4 KiB, unique>, no credential: 401"},
	oauthFlow:         {"oauth flow", 8, "authorize with PKCE: 302 → token: 200 → GET patient with it: 200 → 1 in 4 revoke: 200"},
}

// pick draws a kind by weight.
func pick(rng *rand.Rand) kind {
	n := rng.IntN(100)
	for k := range kinds {
		if n < mix[k].weight {
			return k
		}
		n -= mix[k].weight
	}
	panic("mix weights do not sum to 100")
}

// readAccountPatients is how many patients the read account holds.
const readAccountPatients = 200

var (
	firstNames = []string{"Ann", "Bea", "Cora", "Dina", "Eve", "Fay", "Gia", "Hana", "Iris", "Jo"}
	lastNames  = []string{"Smith", "Jones", "Brown", "Garcia", "Miller", "Davis", "Lopez", "Wilson", "Moore", "Clark"}
	queries    = []string{"smi", "ann", "garc", "example", "iris", "o", "zzz-none"}
	// longSuffix makes each denied path about 4 KiB.
	longSuffix = strings.Repeat("a", 4000)
)

func patientBody(i int) string {
	return fmt.Sprintf(`{"firstName":%q,"lastName":%q,"email":"p%d@example.com","phone":"+1555%07d",`+
		`"dateOfBirth":"1980-01-%02d","gender":"female","address":{"line1":"%d Main St","city":"Springfield","state":"IL","postalCode":"62701","country":"US"},`+
		`"allergies":["latex"],"notes":"memsoak patient %d: clinical notes","tags":["memsoak"]}`,
		firstNames[i%len(firstNames)], lastNames[i/len(firstNames)%len(lastNames)], i, i%10_000_000, 1+i%28, i, i)
}

// slotBase is where the write account's appointments start; each takes the next 10 minutes, so
// none conflicts.
var slotBase = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func appointmentBody(patientID string, slot int64) string {
	start := slotBase.Add(time.Duration(slot) * 10 * time.Minute)
	return fmt.Sprintf(`{"patientId":%q,"providerId":"prv_%d","service":"Consultation","startAt":%q,"endAt":%q}`,
		patientID, slot%20, start.Format(time.RFC3339), start.Add(10*time.Minute).Format(time.RFC3339))
}

// pkce returns a code verifier and its S256 challenge (RFC 7636).
func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	crand.Read(b) // never fails (crypto/rand)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// oauth runs one authorization: authorize → token → a call with the token → sometimes revoke.
func (d *driver) oauth(rng *rand.Rand) {
	verifier, challenge := pkce()
	q := url.Values{
		"response_type": {"code"}, "client_id": {d.oauthID}, "redirect_uri": {d.redirectURI},
		"scope": {"patients:read"}, "state": {"s"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"},
	}
	res, ok := d.do(oauthFlow, http.StatusFound, "GET", "/oauth/authorize?"+q.Encode(), nil, "")
	if !ok {
		return
	}
	loc, err := url.Parse(res.header.Get("Location"))
	code := ""
	if err == nil {
		code = loc.Query().Get("code")
	}
	if code == "" {
		d.unexpected(oauthFlow, "authorize: 302 without a code: "+loc.Query().Get("error"))
		return
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {d.redirectURI}, "code_verifier": {verifier}}
	res, ok = d.do(oauthFlow, http.StatusOK, "POST", "/oauth/token", strings.NewReader(form.Encode()), "basic")
	if !ok {
		return
	}
	var tok struct {
		Access  string `json:"access_token"`
		Refresh string `json:"refresh_token"`
	}
	if err := json.Unmarshal(res.body, &tok); err != nil || tok.Access == "" || tok.Refresh == "" {
		d.unexpected(oauthFlow, "token: 200 without an access and a refresh token")
		return
	}
	if _, ok := d.do(oauthFlow, http.StatusOK, "GET", "/api/v1/patients/"+d.readPatient(rng), nil, "Bearer "+tok.Access); !ok {
		return
	}
	if rng.IntN(4) == 0 {
		form := url.Values{"token": {tok.Refresh}, "token_type_hint": {"refresh_token"}}
		d.do(oauthFlow, http.StatusOK, "POST", "/oauth/revoke", strings.NewReader(form.Encode()), "basic")
	}
}

// unit runs one unit of kind k.
func (d *driver) unit(k kind, rng *rand.Rand) {
	switch k {
	case readPatient:
		d.do(k, http.StatusOK, "GET", "/api/v1/patients/"+d.readPatient(rng), nil, d.readKey)
	case listPatients:
		d.do(k, http.StatusOK, "GET", "/api/v1/patients?perPage=20&q="+queries[rng.IntN(len(queries))], nil, d.readKey)
	case denyLongPath:
		d.do(k, http.StatusUnauthorized, "GET", fmt.Sprintf("/api/v1/patients/%d-%s", d.done.Load(), longSuffix), nil, "")
	case oauthFlow:
		d.oauth(rng)
	default:
		d.write(k)
	}
}

// write runs one write in the write account, which a reset may not swap out from under it.
func (d *driver) write(k kind) {
	d.wmu.RLock()
	w := d.w
	var path, body string
	switch k {
	case createPatient:
		path, body = "/api/v1/patients", patientBody(int(d.writeSeq.Add(1)))
	case createAppointment:
		path, body = "/api/v1/appointments", appointmentBody(w.patient, w.slot.Add(1))
	case adjustInventory:
		path, body = "/api/v1/inventory/adjust", fmt.Sprintf(`{"productId":%q,"delta":1,"reason":"received"}`, w.product)
	}
	d.do(k, http.StatusCreated, "POST", path, strings.NewReader(body), d.writeKey)
	d.wmu.RUnlock()
	if n := d.writes.Add(1); d.cfg.ResetEvery > 0 && n%int64(d.cfg.ResetEvery) == 0 {
		if err := d.resetWriteAccount(); err != nil {
			d.fatal(fmt.Errorf("resetting the write account: %w", err))
		}
	}
}

func (d *driver) readPatient(rng *rand.Rand) string {
	return d.readPatients[rng.IntN(len(d.readPatients))]
}

// printMix writes the mix table.
func printMix(w io.Writer) {
	fmt.Fprintln(w, "mix (weight of each unit, out of 100):")
	for k := range kinds {
		fmt.Fprintf(w, "  %3d  %-19s %s\n", mix[k].weight, mix[k].name, mix[k].does)
	}
}
