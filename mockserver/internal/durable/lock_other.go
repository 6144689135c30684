//go:build !unix && !windows

package durable

import (
	"io"
	"os"
)

// lockFile creates path but takes no lock: this platform offers no lock the kernel releases when
// a process dies, and a lock file that outlives a crash would block the restart.
func lockFile(path string) (io.Closer, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
