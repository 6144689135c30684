package medspa_test

import (
	"os"
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

	testCmd := regexp.MustCompile(`(?m)^go test .*$`)
	ciCmd := testCmd.FindString(ci)
	if ciCmd == "" || !strings.Contains(readme, "\n"+ciCmd+" ") {
		t.Errorf("README lacks .ci/run's test command %q", ciCmd)
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
