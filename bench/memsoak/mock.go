package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// buildMock builds cmd/medspa-mock into dir and returns the binary's path.
func buildMock(dir string) (string, error) {
	bin := filepath.Join(dir, "medspa-mock")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/medspa/medspa-go/cmd/medspa-mock").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build cmd/medspa-mock (run memsoak inside the module): %v\n%s", err, out)
	}
	return bin, nil
}

// mock is the server process.
type mock struct {
	cmd  *exec.Cmd
	base string
	done chan struct{} // closed when the process has exited
}

// startMock starts the binary on a free loopback port, quiet, and waits for its base URL.
func startMock(bin string, cfg Config) (*mock, error) {
	args := []string{"-addr", "127.0.0.1:0", "-quiet"}
	if cfg.Data != "" {
		args = append(args, "-data", cfg.Data)
	}
	cmd := exec.Command(bin, append(args, cfg.MockArgs...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	m := &mock{cmd: cmd, done: make(chan struct{})}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MEDSPA_BASE_URL="); ok {
			m.base = v
			break
		}
	}
	go func() {
		io.Copy(io.Discard, stdout)
		cmd.Wait()
		close(m.done)
	}()
	if m.base == "" {
		m.stop()
		return nil, fmt.Errorf("%s exited before printing MEDSPA_BASE_URL", bin)
	}
	return m, nil
}

// stop asks the server to shut down (it saves -data then) and kills it if it has not within 30 s.
func (m *mock) stop() {
	m.cmd.Process.Signal(os.Interrupt)
	select {
	case <-m.done:
	case <-time.After(30 * time.Second):
		m.cmd.Process.Kill()
		<-m.done
	}
}

// rssMB reads a process's resident set size (VmRSS, in KiB) from /proc, in MB (10^6 bytes).
func rssMB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kib float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%f kB", &kib); err != nil {
				return 0, fmt.Errorf("VmRSS %q: %w", rest, err)
			}
			return kib * 1024 / 1e6, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
