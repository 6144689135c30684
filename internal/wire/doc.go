// Package wire holds the protocol facts that the SDK and the mock server share
// (docs/protocol.md): the error-code table, the timestamp form, Retry-After, the shape of ids
// and which hosts are loopback. Each has one home here, so the two sides cannot drift apart.
//
// It imports only the standard library and is internal to the module.
package wire
