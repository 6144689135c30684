// Package wire holds the protocol facts that the SDK and the mock server share
// (docs/protocol.md): the error-code table, the timestamp form, the calendar date (Date), a
// list answer's paging (Meta), Retry-After, the shape of ids and which hosts are loopback. Each
// has one home here, so the two sides cannot drift apart, and the mock server needs none of the
// SDK's engine to speak them.
//
// It imports only the standard library and is internal to the module.
package wire
