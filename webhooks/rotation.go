package webhooks

import "time"

// SecretRotation is the answer of rotating an endpoint's signing secret (docs/protocol.md §9
// "Webhooks and events"): the new secret, shown only here, and when the previous one stops
// signing. Until then every delivery carries two signatures in its webhook-signature header,
// the new secret's first; a receiver that knows either secret accepts it.
type SecretRotation struct {
	// Secret (whsec_…) is the endpoint's new secret.
	Secret string `json:"secret"`
	// PreviousSecretExpiresAt is when the previous secret stops signing, on the server clock;
	// nil when it stopped at once.
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt"`
}
