package medspa_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	medspa "github.com/medspa/medspa-go"
)

// TestDocsAgree keeps the README, CI, go.mod and changelog in step: the README's test command
// is exactly the one .ci/run runs, every direct dependency is in its table, and the changelog's
// newest release is medspa.Version.
func TestDocsAgree(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	readme, ci, changelog := read("README.md"), read(".ci/run"), read("CHANGELOG.md")

	// Every direct dependency has a line of why in the README's table.
	for _, m := range regexp.MustCompile(`(?m)^\t(\S+) v\S+$`).FindAllStringSubmatch(read("go.mod"), -1) {
		if !strings.Contains(readme, "| `"+m[1]+"` |") {
			t.Errorf("README's dependency table lacks %s", m[1])
		}
	}

	// .ci/run runs the README's test command, ./test.sh, which ends in the go test run.
	if !regexp.MustCompile(`(?m)^\./test\.sh$`).MatchString(ci) || !strings.Contains(readme, "\n./test.sh ") {
		t.Error("README and .ci/run do not share the test command ./test.sh")
	}
	if !regexp.MustCompile(`(?m)^exec go test -race -p 6 \./\.\.\.$`).MatchString(read("test.sh")) {
		t.Error("test.sh does not end in the whole suite under the race detector")
	}
	if !strings.Contains(readme, "\ngo run ./examples/quickstart ") {
		t.Error("README lacks the quickstart command")
	}

	release := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$`).FindStringSubmatch(changelog)
	if release == nil || release[1] != medspa.Version {
		t.Errorf("newest CHANGELOG release %v, medspa.Version %s", release, medspa.Version)
	}
	if !strings.Contains(readme, "medspa-go/"+medspa.Version+" ") {
		t.Errorf("README's User-Agent example is not version %s", medspa.Version)
	}
}

// TestSecurityTestsExist keeps SECURITY.md honest: every test it names as holding a defence
// exists.
func TestSecurityTestsExist(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("SECURITY.md")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range regexp.MustCompile(`(?m)^func (Test\w+)\(`).FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`(Test\\w+)`").FindAllSubmatch(doc, -1)
	if len(named) < 20 {
		t.Fatalf("SECURITY.md names %d tests", len(named))
	}
	for _, m := range named {
		if !defined[string(m[1])] {
			t.Errorf("SECURITY.md names %s, which no test file defines", m[1])
		}
	}
}
