// Package mockserver is the reference MedSpa API server: a full, stateful, in-memory
// implementation of the protocol — validation, rules, errors, rate limits, OAuth, request and
// response signatures, webhooks, audit log — with controls for tests.
//
// Run it in-process from Go, with no network:
//
//	srv := mockserver.NewTest(t)   // isolated server; srv.Client, srv.Key, srv.Account; closed with t
//	c, key, err := srv.NewClient() // another client, with its key (key.Account names its account)
//
// or standalone for any language (cmd/medspa-mock), where every control is also under /__admin/
// (described by /__admin/openapi.yaml), and the inspector page /__admin/ui/ shows and steers
// them in a browser.
//
// Every API key (CreateAPIKey) gets a fresh, empty account unless it names one, so parallel
// tests can share a server without seeing each other's data, limits, clocks or webhooks.
//
// Controls, per account ("" = server-wide where it applies):
//
//   - clock: SetTime, AdvanceTime, RealTime, Now — every time-based rule follows;
//   - fixtures: LoadFixtures, created through the API's own rules;
//   - snapshots: Snapshot and Restore, the whole state by name;
//   - faults: InjectFault (status with the protocol's problem, Retry-After, delay, dropped
//     connection, after commit), ClearFaults, Faults (armed and used up);
//   - stubs: AddStub, Stubs, DeleteStub, ClearStubs — a custom answer for a route, journaled as
//     such, never touching the store;
//   - journal: Requests, a bounded, redacted log of what the server saw;
//   - events and webhooks: RecordEvents, Deliveries;
//   - audit log: AuditLog (the events kept in memory and the checkpoint of the rest),
//     AuditEventsAfter (paging, through the audit file under WithDataDir), AuditEvents,
//     VerifyAuditChain and VerifyAuditChainFrom;
//   - Reset, SaveState and LoadState.
//
// A TestServer has the same controls without the account for its own (ts.SetTime(t),
// ts.Requests(), …; ts.Server.SetTime(other, t) for another), and WebhookReceiver: a verified
// webhook endpoint whose Next waits for an event.
//
// For long-running shared use (docs/protocol.md §13) everything the server keeps for requests
// is bounded (WithBounds, WithAuditRetention, WithJournalSize; RELIABILITY.md "Bounds"), and
// HTTPServer, LimitListener and ListenAndServe serve it over a listener with the protocol's
// timeouts and connection cap (WithConnLimits). WithTrustedProxy names the proxies whose
// X-Forwarded-For it believes.
//
// WithSeed and WithStartTime make a server deterministic: the same test gets the same ids and
// data run after run; secrets stay random unless WithPredictableSecrets (tests that compare
// whole answers byte for byte). WithStrictValidation validates every request against the OpenAPI
// document first. See docs/mock-server.md for the full reference.
package mockserver
