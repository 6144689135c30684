package durable

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// lockFile opens path (created if needed) with no sharing: no other handle can open it until
// this one is closed, which Windows does when the process ends, however it ends.
func lockFile(path string) (io.Closer, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		const errorSharingViolation = syscall.Errno(32)
		if errors.Is(err, errorSharingViolation) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return os.NewFile(uintptr(h), path), nil
}

// syncDir is a no-op: Windows cannot sync a directory handle, and NTFS journals renames.
func syncDir(string) error { return nil }
