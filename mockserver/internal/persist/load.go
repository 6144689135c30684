package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
	bolt "go.etcd.io/bbolt"
)

// load reads the file into the parts in one read transaction: the PHI key's check, the id
// generator, the server's clock, credentials, OAuth records, then each account's records
// (store.Account.Load), clock and pending deliveries. Then the events of changes committed
// since the last clean close are delivered again (at least once: some may have gone out before
// the server stopped).
func (e *Engine) load() error {
	start, p := time.Now(), e.parts
	pending, redeliver := map[string][]webhook.Pending{}, map[string][]store.Event{}
	var claims []op // claim markers left by a crash: dropped
	err := e.db.View(func(tx *bolt.Tx) error {
		m := tx.Bucket([]byte(bMeta))
		kc, ids := m.Get([]byte(kKeyCheck)), m.Get([]byte(kIDs))
		if kc != nil && string(kc) != p.Store.KeyCheck() {
			return errors.New("the data directory was sealed with another PHI key")
		}
		e.dirty = durable.U64(m.Get([]byte(kDirty)))
		// No change since the file was made, and no clean close (which writes ids): no state.
		e.loaded.Fresh, e.loaded.Changes = kc == nil || e.dirty == 0 && ids == nil, int(e.dirty)
		if ids != nil {
			if err := p.Store.IDs().UnmarshalBinary(ids); err != nil {
				return err
			}
		}
		err := errors.Join(setClock(p, "", m.Get([]byte(kClock))), each(tx.Bucket([]byte(bCred)), func(_, v []byte) error {
			var st auth.CredentialState
			if err := json.Unmarshal(v, &st); err != nil || st.Credential == nil {
				return fmt.Errorf("credential %s: %w", st.ID, errors.Join(err, errors.New("malformed")))
			}
			p.Store.Account(st.Credential.Account)
			return p.Keys.Restore(st)
		}))
		for _, kind := range oauthKinds { // in this order: what refers comes after
			if o := tx.Bucket([]byte(bOAuth)); err == nil && o != nil {
				err = each(o.Bucket([]byte(kind)), func(_, v []byte) error {
					var r auth.OAuthRecord
					if err := json.Unmarshal(v, &r); err != nil {
						return fmt.Errorf("an OAuth %s: %w", kind, err)
					}
					if r.Client != nil && r.Client.Credential != nil {
						p.Store.Account(r.Client.Credential.Account)
					}
					return p.OAuth.Restore([]auth.OAuthRecord{r})
				})
			}
		}
		if err != nil {
			return err
		}
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			account, ok := accountOf(name)
			if !ok {
				return nil
			}
			if err := setClock(p, account, b.Get([]byte(kClock))); err != nil {
				return err
			}
			if v := b.Get([]byte(kPending)); v != nil {
				var pd []webhook.Pending
				if err := json.Unmarshal(v, &pd); err != nil {
					return fmt.Errorf("pending deliveries of %s: %w", account, err)
				}
				pending[account] = pd
			}
			settled := durable.U64(b.Get([]byte(kSettled)))
			s := &seqs{settled + 1, settled + 1} // new events sort after the settled one, even if gone
			e.events[account] = s
			var recs []store.Record
			err := b.ForEachBucket(func(kind []byte) error {
				k := string(kind)
				return each(b.Bucket(kind), func(key, v []byte) error {
					n, event := durable.U64(key), k == store.KindEvent
					if k == claimsSub {
						claims = append(claims, op{string(name), claimsSub, bytes.Clone(key), nil})
						return nil
					} else if event {
						s.lo, s.next = min(s.lo, n), max(s.next, n+1)
					}
					recs = append(recs, store.Record{Kind: k, Key: key, Value: v, Redeliver: event && n > settled})
					return nil
				})
			})
			if err == nil {
				redeliver[account], err = p.Store.Account(account).Load(recs)
			}
			e.loaded.Records += len(recs)
			return err
		})
	})
	if err != nil {
		return err
	}
	e.loaded.Skipped = len(claims)
	p.Store.FinishReplay()
	p.OAuth.FinishRestore()
	if e.dirty > 0 {
		// The generator's state is the last clean close's; since then the server drew ids and
		// secrets the file does not record all of (codes, secrets): go elsewhere in the stream.
		p.Store.IDs().Reseed(binary.BigEndian.AppendUint64([]byte("dirty"), e.dirty))
	}
	for account, pd := range pending {
		if err := p.Webhooks.ImportPending(p.Store.Account(account), pd); err != nil {
			return fmt.Errorf("pending deliveries of %s: %w", account, err)
		}
	}
	for account, events := range redeliver {
		p.Store.Account(account).Redeliver(events)
	}
	ops := append(claims, op{bMeta, "", []byte(kKeyCheck), []byte(p.Store.KeyCheck())})
	e.loaded.Took = time.Since(start)
	return e.db.Update(func(tx *bolt.Tx) error { return apply(tx, ops) })
}

// setClock gives account ("" the server) the clock setting v (nil: none).
func setClock(p Parts, account string, v []byte) error {
	if v == nil {
		return nil
	}
	var st clock.State
	if err := json.Unmarshal(v, &st); err != nil {
		return fmt.Errorf("the clock of %q: %w", account, err)
	}
	p.SetClock(account, &st)
	return nil
}

// each calls fn for every key of b (none when b is nil) that is not a bucket.
func each(b *bolt.Bucket, fn func(k, v []byte) error) error {
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			return nil
		}
		return fn(k, v)
	})
}
