package mockserver_test

import (
	"net/http/httptest"
	"testing"

	"github.com/medspa/medspa-go/internal/restarttest"
	"github.com/medspa/medspa-go/mockserver"
)

// startOn starts a server on the data directory over a loopback listener; both are closed with
// t, or by the returned stop (crash: without the data directory's last compaction, as a
// crash leaves it).
func startOn(t *testing.T, dir string, opts ...mockserver.Option) (*mockserver.Server, string, func(crash bool)) {
	t.Helper()
	s, err := mockserver.New(append([]mockserver.Option{mockserver.WithDataDir(dir)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	stopped := false
	stop := func(crash bool) {
		if stopped {
			return
		}
		stopped = true
		hs.Close()
		if crash {
			err = mockserver.CrashForTest(s)
		} else {
			err = s.Close()
		}
		if err != nil {
			t.Errorf("stopping: %v", err)
		}
	}
	t.Cleanup(func() { stop(false) })
	return s, hs.URL, stop
}

// A server on a data directory, closed (or crashed) and started again on it, keeps everything
// of docs/protocol.md §13 (the in-process counterpart of the binary's tests in
// cmd/medspa-mock).
func TestDataDirRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	for _, crash := range []bool{false, true} {
		name := map[bool]string{false: "close", true: "crash"}[crash]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s, url, stop := startOn(t, dir)
			k := newKey(t, s, "")
			restart := func(t *testing.T) restarttest.Target {
				stop(crash)
				s2, url2, _ := startOn(t, dir)
				_, st, _ := s2.DataDir()
				if st.Fresh || crash != (st.LoggedChanges > 0) {
					t.Fatalf("the restarted server found %+v", st)
				}
				return restarttest.Target{BaseURL: url2, Key: k.Key, Account: k.Account}
			}
			restarttest.Run(t, restarttest.Target{BaseURL: url, Key: k.Key, Account: k.Account}, restart, restarttest.Items())
		})
	}
}
