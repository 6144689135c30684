// Package layers holds the test that keeps the module's layers apart: the import rules of
// ARCHITECTURE.md ("Layers"), checked over every package's non-test files.
package layers
