// Command baseline is a plain net/http server used as the "physical limit"
// anchor for the patients mock benchmarks: an in-memory map of patients behind
// a sync.RWMutex, Go 1.22+ ServeMux patterns, encoding/json, bearer auth.
//
// It is a copy of the baseline of issue 21's wrk-ratio script (which lives outside the
// repository), unchanged but for this paragraph, newHandler, and two flags that are off by
// default, so that bench/wrk/run.sh measures against the same server from a clone: the same
// patient shape, JSON encoded for every request. -work makes every request busy-wait that long
// first, and -floor serves the reads doing only the work the mock's protocol requires
// (floor.go): bench/wrk/budget.sh uses both to show what extra work per request costs a bare
// server's throughput.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

type Patient struct {
	ID        string    `json:"id"`
	FirstName string    `json:"firstName"`
	LastName  string    `json:"lastName"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"createdAt"`
}

type Meta struct {
	Total   int `json:"total"`
	Page    int `json:"page"`
	PerPage int `json:"perPage"`
}

type ListResponse struct {
	Data []Patient `json:"data"`
	Meta Meta      `json:"meta"`
}

type apiError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

type store struct {
	mu    sync.RWMutex
	byID  map[string]Patient
	order []string // insertion order, for stable pagination
	seq   int
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// patientID returns a deterministic ULID-shaped id: "pat_" + 26 Crockford chars.
func patientID(n int) string {
	var tail [4]byte
	for i := 3; i >= 0; i-- {
		tail[i] = crockford[n%32]
		n /= 32
	}
	return "pat_01J8ZK3Q4V6W7X8Y9Z0A1B" + string(tail[:])
}

var firstNames = []string{"Ada", "Grace", "Alan", "Katherine", "Linus", "Barbara", "Edsger", "Margaret", "Dennis", "Radia"}
var lastNames = []string{"Lovelace", "Hopper", "Turing", "Johnson", "Torvalds", "Liskov", "Dijkstra", "Hamilton", "Ritchie", "Perlman"}

func newStore(n int) *store {
	s := &store{byID: make(map[string]Patient, n)}
	base := time.Date(2024, 9, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		fn, ln := firstNames[i%len(firstNames)], lastNames[(i/len(firstNames))%len(lastNames)]
		p := Patient{
			ID:        patientID(i + 1),
			FirstName: fn,
			LastName:  ln,
			Email:     fmt.Sprintf("%s.%s.%d@example.com", strings.ToLower(fn), strings.ToLower(ln), i+1),
			CreatedAt: base.Add(time.Duration(i) * time.Hour),
		}
		s.byID[p.ID] = p
		s.order = append(s.order, p.ID)
	}
	s.seq = n
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("encode: %v", err)
	}
}

// busyWork is how long every request spins before it is served (-work).
var busyWork time.Duration

func requireBearer(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if busyWork > 0 {
			for start := time.Now(); time.Since(start) < busyWork; {
			}
		}
		h := r.Header.Get("Authorization")
		tok, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || tok == "" || (token != "" && tok != token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
			writeJSON(w, http.StatusUnauthorized, apiError{"unauthorized", "missing or invalid bearer token"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func intParam(r *http.Request, name string, def, min, max int) (int, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		return 0, false
	}
	return n, true
}

func (s *store) list(w http.ResponseWriter, r *http.Request) {
	page, ok1 := intParam(r, "page", 1, 1, 1<<30)
	perPage, ok2 := intParam(r, "perPage", 20, 1, 100)
	if !ok1 || !ok2 {
		writeJSON(w, http.StatusBadRequest, apiError{"bad_request", "invalid page or perPage"})
		return
	}
	s.mu.RLock()
	total := len(s.order)
	start := (page - 1) * perPage
	data := []Patient{}
	if start < total {
		end := min(start+perPage, total)
		data = make([]Patient, 0, end-start)
		for _, id := range s.order[start:end] {
			data = append(data, s.byID[id])
		}
	}
	s.mu.RUnlock()
	writeJSON(w, http.StatusOK, ListResponse{Data: data, Meta: Meta{Total: total, Page: page, PerPage: perPage}})
}

func (s *store) get(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.RLock()
	p, ok := s.byID[id]
	s.mu.RUnlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, apiError{"not_found", "patient not found"})
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (s *store) create(w http.ResponseWriter, r *http.Request) {
	var in struct {
		FirstName string `json:"firstName"`
		LastName  string `json:"lastName"`
		Email     string `json:"email"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{"bad_request", "invalid JSON body"})
		return
	}
	if in.FirstName == "" || in.LastName == "" || !strings.Contains(in.Email, "@") {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{"validation_error", "firstName, lastName and a valid email are required"})
		return
	}
	s.mu.Lock()
	s.seq++
	p := Patient{ID: patientID(s.seq), FirstName: in.FirstName, LastName: in.LastName, Email: in.Email, CreatedAt: time.Now().UTC().Truncate(time.Second)}
	s.byID[p.ID] = p
	s.order = append(s.order, p.ID)
	s.mu.Unlock()
	w.Header().Set("Location", "/api/v1/patients/"+p.ID)
	writeJSON(w, http.StatusCreated, p)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	n := flag.Int("n", 1000, "number of seeded patients")
	token := flag.String("token", "test-token", "accepted bearer token (empty: any non-empty token)")
	floor := flag.Bool("floor", false, "serve the reads doing only the protocol's required work (floor.go)")
	flag.DurationVar(&busyWork, "work", 0, "busy-wait this long in every request before serving it")
	writeDB := flag.String("write-db", "", "write a json-server db.json with the seeded patients to this path and exit")
	flag.Parse()

	s := newStore(*n)
	if *writeDB != "" {
		ps := make([]Patient, 0, len(s.order))
		for _, id := range s.order {
			ps = append(ps, s.byID[id])
		}
		b, err := json.MarshalIndent(map[string]any{"patients": ps}, "", "  ")
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(*writeDB, b, 0o644); err != nil {
			log.Fatal(err)
		}
		return
	}

	srv := &http.Server{
		Addr:              *addr,
		Handler:           newHandler(s, *token, *floor),
		ReadHeaderTimeout: 5 * time.Second,
	}
	log.Printf("baseline listening on %s (%d patients)", *addr, *n)
	log.Fatal(srv.ListenAndServe())
}

// newHandler routes the patients API: the plain server's, or the protocol floor's reads (floor.go).
func newHandler(s *store, token string, floor bool) http.Handler {
	mux := http.NewServeMux()
	if floor {
		f := newFloor(s, token, os.Stderr)
		mux.Handle("GET /api/v1/patients", f)
		mux.Handle("GET /api/v1/patients/{id}", f)
		return mux
	}
	mux.HandleFunc("GET /api/v1/patients", s.list)
	mux.HandleFunc("POST /api/v1/patients", s.create)
	mux.HandleFunc("GET /api/v1/patients/{id}", s.get)
	return requireBearer(token, mux)
}
