//go:build !windows

package durable

import "os"

// syncDir syncs a directory, so the files created, renamed and removed in it stay so after a
// power loss.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}
