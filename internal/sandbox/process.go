package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is a sandbox program we run ourselves (envtest runs etcd and the
// API server); its output goes to a log file in the sandbox directory.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

func (s *Sandbox) startProcess(bin, name string, args ...string) (*process, error) {
	p := &process{name: name, log: filepath.Join(s.dir, name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(filepath.Join(bin, name), args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	setParentDeathSignal(p.cmd)
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	s.procs = append(s.procs, p)
	return p, nil
}

// exited reports, without blocking, whether the process has ended and why.
func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v): %s", p.name, p.err, p.tail())
	default:
		return nil
	}
}

// tail returns the last lines of the process's log for error messages.
func (p *process) tail() string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

// stop sends SIGTERM, then SIGKILL after 5 seconds, and waits for the exit.
func (p *process) stop() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	var exit *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exit) {
		return fmt.Errorf("stop %s: %w", p.name, p.err)
	}
	return nil
}
