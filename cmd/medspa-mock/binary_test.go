package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests of this file run the real binary, built once per test binary.

var built struct {
	once      sync.Once
	dir, path string
	err       error
	out       []byte
}

// binary returns the path of the medspa-mock binary, built on first use.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "medspa-mock-test")
		if built.err == nil {
			built.path = filepath.Join(built.dir, "medspa-mock")
			built.out, built.err = exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		}
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// proc is a running medspa-mock: what it printed at start, and its further output.
type proc struct {
	cmd                *exec.Cmd
	base, key, account string
	lines              []string // the start-up lines
	done               chan struct{}
	mu                 sync.Mutex
	rest               strings.Builder
	waitErr            error
}

// startBinary starts the binary with args (after -addr 127.0.0.1:0 -quiet) and reads its
// start-up lines; it is killed at the end of the test if still running.
func startBinary(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"-addr", "127.0.0.1:0", "-quiet"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		p.lines = append(p.lines, line)
		if v, ok := strings.CutPrefix(line, "MEDSPA_BASE_URL="); ok {
			p.base = v
		}
		if v, ok := strings.CutPrefix(line, "MEDSPA_API_KEY="); ok {
			p.key = v
		}
		if v, ok := strings.CutPrefix(line, "account="); ok {
			p.account = v
			break
		}
	}
	go func() {
		b, _ := io.ReadAll(out)
		p.mu.Lock()
		p.rest.Write(b)
		p.mu.Unlock()
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	if p.account == "" {
		<-p.done
		t.Fatalf("the server did not start (%v): %q", p.waitErr, p.lines)
	}
	return p
}

// stop ends the process: gracefully (SIGTERM, and a clean exit expected) or as a crash
// (SIGKILL).
func (p *proc) stop(t *testing.T, kill bool) {
	t.Helper()
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not stop")
	}
	if !kill && p.waitErr != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", p.waitErr, p.output())
	}
}

// output is what the process printed after its start-up lines.
func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rest.String()
}
