package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// Error classes: the only thing a failed attempt says, in Delivery.Error and in the "error" of
// POST /webhooks/{id}/test. A class never carries an address, a port, a host name or a
// resolver's message, so the test endpoint tells no more than "it failed, this way": it is not
// a port scanner (docs/protocol.md §9, issue 19).
const (
	// ClassTimeout: the attempt, connect and TLS included, ran past its timeout (10 s).
	ClassTimeout = "timeout"
	// ClassDNS: the host name did not resolve.
	ClassDNS = "dns"
	// ClassBlockedAddress: the destination address is refused by the SSRF guard.
	ClassBlockedAddress = "blocked_address"
	// ClassConnectionRefused: nothing listens there.
	ClassConnectionRefused = "connection_refused"
	// ClassConnectionReset: the receiver closed or reset the connection without answering.
	ClassConnectionReset = "connection_reset"
	// ClassTLS: the TLS handshake failed (untrusted certificate, not a TLS server, …).
	ClassTLS = "tls"
	// ClassNetwork: any other failure before an answer (unreachable network, …).
	ClassNetwork = "network"
	// ClassTooLarge: the receiver's response headers exceeded 64 KiB.
	ClassTooLarge = "too_large"
	// ClassRedirect: the receiver answered 3xx; redirects are not followed.
	ClassRedirect = "redirect"
	// ClassStatus: the receiver answered another non-2xx status (Delivery.StatusCode says which).
	ClassStatus = "status"
	// ClassInvalidEndpoint: the stored URL or secret cannot be used to sign or send.
	ClassInvalidEndpoint = "invalid_endpoint"
	// ClassCancelled: the caller of a test delivery went away before it ended.
	ClassCancelled = "cancelled"
	// ClassDropped: never attempted; the endpoint's (or the account's) queue overflowed and
	// this was the oldest pending delivery (docs/protocol.md §13).
	ClassDropped = "dropped"
)

// ErrorClasses lists every class, in the order above.
var ErrorClasses = []string{
	ClassTimeout, ClassDNS, ClassBlockedAddress, ClassConnectionRefused, ClassConnectionReset,
	ClassTLS, ClassNetwork, ClassTooLarge, ClassRedirect, ClassStatus, ClassInvalidEndpoint,
	ClassCancelled, ClassDropped,
}

// classify names the class of a transport error (one that ended an attempt before a status).
func classify(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, errBlockedAddress):
		return ClassBlockedAddress
	case errors.Is(err, errNoSuchHost) || errors.As(err, new(*net.DNSError)):
		return ClassDNS
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.As(err, &netErr) && netErr.Timeout():
		return ClassTimeout
	case errors.Is(err, context.Canceled):
		return ClassCancelled
	case errors.Is(err, syscall.ECONNREFUSED):
		return ClassConnectionRefused
	case isTLS(err):
		return ClassTLS
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "server closed idle connection"): // net/http's text for a close before the answer
		return ClassConnectionReset
	case strings.Contains(err.Error(), "response headers exceeded"):
		return ClassTooLarge // net/http has no typed error for it
	}
	return ClassNetwork
}

func isTLS(err error) bool {
	return errors.As(err, new(tls.RecordHeaderError)) || errors.As(err, new(*tls.CertificateVerificationError)) ||
		errors.As(err, new(tls.AlertError)) || errors.As(err, new(x509.UnknownAuthorityError)) ||
		errors.As(err, new(x509.HostnameError)) || errors.As(err, new(x509.CertificateInvalidError)) ||
		// net/http replaces the record-header error of a plain-HTTP answer with its own text.
		strings.Contains(err.Error(), "gave HTTP response to HTTPS client") ||
		strings.Contains(err.Error(), "tls: ")
}
