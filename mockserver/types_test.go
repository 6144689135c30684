package mockserver

import (
	"reflect"
	"testing"

	"github.com/medspa/medspa-go/mockserver/internal/admin"
	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// The public types read as the admin surface's JSON: each has the fields of the internal type
// the admin surface encodes, with the same JSON names (a conversion checks the fields' names and
// types; this checks the tags, which conversions ignore).
func TestPublicTypesMatchTheAdminJSON(t *testing.T) {
	t.Parallel()
	for _, pair := range []struct{ public, internal reflect.Type }{
		{reflect.TypeFor[APIKeyParams](), reflect.TypeFor[admin.APIKeyParams]()},
		{reflect.TypeFor[APIKey](), reflect.TypeFor[admin.APIKey]()},
		{reflect.TypeFor[APIKeyRotation](), reflect.TypeFor[admin.APIKeyRotation]()},
		{reflect.TypeFor[OAuthClientParams](), reflect.TypeFor[admin.OAuthClientParams]()},
		{reflect.TypeFor[OAuthClient](), reflect.TypeFor[admin.OAuthClient]()},
		{reflect.TypeFor[Fault](), reflect.TypeFor[controls.Fault]()},
		{reflect.TypeFor[Fixtures](), reflect.TypeFor[admin.Fixtures]()},
		{reflect.TypeFor[FixtureIDs](), reflect.TypeFor[admin.FixtureIDs]()},
		{reflect.TypeFor[JournalEntry](), reflect.TypeFor[controls.JournalEntry]()},
		{reflect.TypeFor[AuditEvent](), reflect.TypeFor[audit.Event]()},
		{reflect.TypeFor[Delivery](), reflect.TypeFor[webhook.Delivery]()},
	} {
		for i := range pair.public.NumField() {
			f := pair.public.Field(i)
			g, ok := pair.internal.FieldByName(f.Name)
			if f.Anonymous && ok && g.Anonymous && g.Tag == f.Tag { // an embedded public type, checked as its own pair
				continue
			}
			if !ok || g.Type != f.Type || g.Tag.Get("json") != f.Tag.Get("json") {
				t.Errorf("%s.%s (%s %q) does not match %s (%v %q)", pair.public.Name(), f.Name, f.Type, f.Tag.Get("json"),
					pair.internal, g.Type, g.Tag.Get("json"))
			}
		}
	}
}
