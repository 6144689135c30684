package durable

import "time"

// SetFlushDelay changes how long db's flusher waits for a Wait before writing.
func SetFlushDelay(db *DB, d time.Duration) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.delay = d
}

// Path is db's file.
func Path(db *DB) string { return db.bolt.Path() }
