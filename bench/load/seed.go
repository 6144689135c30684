package main

import (
	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
)

// newSeedClient is an SDK client wired to srv in-process with the load key.
func newSeedClient(srv *mockserver.Server, key string) (*medspa.Client, error) {
	return medspa.New(medspa.WithAPIKey(key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.Client()))
}
