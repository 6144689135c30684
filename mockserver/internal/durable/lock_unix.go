//go:build unix

package durable

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
)

// An fcntl (POSIX) record lock is held by the process, not by a file descriptor: it is never
// inherited by a child, so a fork elsewhere in the process (exec.Command) cannot keep a closed log
// locked for a moment the way a flock on an inherited descriptor would, and the kernel drops it
// when the process dies, however it dies, so a killed server never blocks its restart. Within
// the process the lock cannot refuse anyone, so lockedFiles does. The catch: closing any
// descriptor of the file drops the process's lock, so the file is never opened twice (a second
// opener is refused before it opens the file), and nothing else may open LOCK.
var (
	lockedMu    sync.Mutex
	lockedFiles []os.FileInfo // the LOCK files this process holds
)

// processLock is a held lock: closing it releases it.
type processLock struct {
	f  *os.File
	fi os.FileInfo
}

func lockFile(path string) (io.Closer, error) {
	lockedMu.Lock()
	defer lockedMu.Unlock()
	if fi, err := os.Stat(path); err == nil {
		for _, held := range lockedFiles {
			if os.SameFile(held, fi) {
				return nil, ErrLocked
			}
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		f.Close()
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) {
			return nil, ErrLocked
		}
		return nil, err
	}
	lockedFiles = append(lockedFiles, fi)
	return &processLock{f, fi}, nil
}

func (p *processLock) Close() error {
	lockedMu.Lock()
	defer lockedMu.Unlock()
	for i, held := range lockedFiles {
		if held == p.fi {
			lockedFiles = append(lockedFiles[:i], lockedFiles[i+1:]...)
			break
		}
	}
	return p.f.Close() // releases the fcntl lock
}
