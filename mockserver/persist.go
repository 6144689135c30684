package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// stateFormat names the layout SaveState writes.
const stateFormat = "medspa-mock-state/1"

// state is what SaveState writes: accounts' data and idempotency keys (PHI sealed), API keys and
// OAuth clients as SHA-256 digests of their secrets, and the id generator's position (so a seeded server that
// restarts does not hand out the same ids and secrets again).
type state struct {
	Format      string                     `json:"format"`
	SavedAt     time.Time                  `json:"savedAt"`
	PHIKeyCheck string                     `json:"phiKeyCheck"`
	IDs         json.RawMessage            `json:"ids"`
	Credentials json.RawMessage            `json:"credentials"`
	OAuth       json.RawMessage            `json:"oauthClients,omitempty"`
	Accounts    map[string]json.RawMessage `json:"accounts"`
}

// SaveState writes the server's state as JSON: every account's data and idempotency keys, the
// API keys and OAuth clients (only digests of their secrets; signing secrets as they are; OAuth
// codes and tokens are left out). PHI stays sealed
// with the server's PHI key: a server loading the state needs the same key (WithPHIKey).
// Snapshots, the journal, faults and per-account clocks are not included.
func (s *Server) SaveState(w io.Writer) error {
	st := state{Format: stateFormat, SavedAt: s.clock.Now(), PHIKeyCheck: s.store.KeyCheck(), Accounts: map[string]json.RawMessage{}}
	var err error
	if st.IDs, err = s.store.IDs().MarshalBinary(); err != nil {
		return err
	}
	if st.Credentials, err = s.api.Keys().Export(); err != nil {
		return err
	}
	if st.OAuth, err = s.api.OAuth().ExportClients(); err != nil {
		return err
	}
	for _, a := range s.store.Accounts() {
		if st.Accounts[a.ID], err = a.Export(); err != nil {
			return err
		}
	}
	return json.NewEncoder(w).Encode(st)
}

// LoadState reads what SaveState wrote into this server (accounts it names are replaced, keys
// are added). It fails before changing anything when the state has another format or was
// sealed with another PHI key.
func (s *Server) LoadState(r io.Reader) error {
	var st state
	if err := json.NewDecoder(r).Decode(&st); err != nil {
		return fmt.Errorf("mockserver: reading state: %w", err)
	}
	if st.Format != stateFormat {
		return fmt.Errorf("mockserver: state format %q, want %q", st.Format, stateFormat)
	}
	if st.PHIKeyCheck != s.store.KeyCheck() {
		return errors.New("mockserver: the state was saved with another PHI key")
	}
	if err := s.api.Keys().Import(st.Credentials); err != nil {
		return err
	}
	if st.OAuth != nil {
		if err := s.api.OAuth().ImportClients(st.OAuth); err != nil {
			return err
		}
	}
	for id, b := range st.Accounts {
		if err := s.store.Account(id).Import(b); err != nil {
			return err
		}
	}
	return s.store.IDs().UnmarshalBinary(st.IDs)
}
