package httpapi

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unsafe"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// within reports whether s's bytes lie inside outer's.
func within(s, outer string) bool {
	if len(s) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(outer)))
	return p >= lo && p < lo+uintptr(len(outer))
}

// TestJournalKeepsNoPieceOfTheRequestLine: a journal entry's strings are copies, so a kept entry
// does not keep its request's line (a 4 KiB path, say) alive through a 3-byte method.
func TestJournalKeepsNoPieceOfTheRequestLine(t *testing.T) {
	t.Parallel()
	a := New(store.New(store.Options{}), auth.NewRegistry(), Options{JournalSize: 10})
	raw := "GET /api/v1/patients?perPage=2&" + strings.Repeat("z", 4000) + "=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	req.RemoteAddr = "127.0.0.1:1"
	a.ServeHTTP(httptest.NewRecorder(), req)
	j := a.Controls().Journal.List("")
	if len(j) != 1 {
		t.Fatalf("%d entries", len(j))
	}
	e := j[0]
	line := req.Method + " " + req.RequestURI // the pieces net/http cut from the line
	for _, s := range append([]string{e.Method, e.Path}, e.QueryParams...) {
		if within(s, req.RequestURI) || within(s, req.Method) || within(s, req.URL.Path) {
			t.Errorf("the entry keeps %q, a piece of the request line %.40q…", s, line)
		}
	}
	if e.Method != "GET" || strings.Join(e.QueryParams, ",") != "other,perPage" {
		t.Errorf("entry %+v", e)
	}
}
