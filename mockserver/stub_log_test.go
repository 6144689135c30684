package mockserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
)

// lockedBuffer is a log destination the server's goroutines may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStubbedAnswerIsLogged: the request log line of a stubbed answer names the stub, as the
// journal does (fault=stub:<id>), so a log reader can tell it from the API's own answer.
func TestStubbedAnswerIsLogged(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	ts := mockserver.NewTest(t, mockserver.WithLogger(slog.New(mockserver.NewLogHandler(&out))))
	st, err := ts.AddStub(mockserver.Stub{Account: ts.Account, Route: "GET /api/v1/patients", Status: 418, Body: []byte(`{"teapot":true}`), Times: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ts.Client.Patients.List(context.Background(), nil, medspa.WithMaxRetries(0))
	if err == nil {
		t.Fatal("the stubbed 418 was not an error")
	}
	var line string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "path=/api/v1/patients") {
			line = l
		}
	}
	if !strings.Contains(line, "status=418") || !strings.Contains(line, "fault=stub:"+st.ID) {
		t.Fatalf("log line %q: want status=418 and fault=stub:%s", line, st.ID)
	}
}
