package client

// WithClock exposes the client's clock option to the tests.
var WithClock = withClock
