package store

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// Every kind a mutation puts or removes is the kind of a table of data: a change of any kind
// persists, replays and snapshots (tables.go). A new kind of record whose table is missing, or
// made with another kind, fails here.
func TestEveryWrittenKindHasATable(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	write := regexp.MustCompile(`\bt\.(?:put|remove)\("([a-z_]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range write.FindAllStringSubmatch(string(b), -1) {
			seen++
			if _, ok := newData().table(m[1]); !ok {
				t.Errorf("%s writes records of kind %q, which is the kind of no table of data", f, m[1])
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found %d writes: the scan went wrong", seen)
	}
}

// Every record with bytes in it (a sealed field) says which of its fields are sealed: the
// migration of state sealed before the binding seals them again (ImportUnbound), and a field it
// does not know would stay unbound and fail to open.
func TestEveryRecordWithSealedBytesNamesThem(t *testing.T) {
	t.Parallel()
	bytesType := reflect.TypeFor[[]byte]()
	for _, tb := range newData().tables() {
		order, _ := reflect.TypeOf(tb).Elem().FieldByName("order") // table[R].order: []*R
		recType := order.Type.Elem().Elem()
		var byteFields []string
		var walk func(reflect.Type)
		walk = func(st reflect.Type) {
			for i := range st.NumField() {
				switch f := st.Field(i); {
				case f.Anonymous && f.Type.Kind() == reflect.Struct:
					walk(f.Type)
				case f.Type == bytesType:
					byteFields = append(byteFields, f.Name)
				}
			}
		}
		walk(recType)
		rec, ok := reflect.New(recType).Interface().(sealedRecord)
		if len(byteFields) == 0 {
			continue
		}
		if !ok {
			t.Errorf("%s records have byte fields %v but do not name their sealed fields (sealedRecord)", tb.kindName(), byteFields)
			continue
		}
		if n := len(rec.sealedFields()); n != len(byteFields) {
			t.Errorf("%s records have byte fields %v; sealedFields names %d", tb.kindName(), byteFields, n)
		}
	}
}
