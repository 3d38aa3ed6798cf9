// Package childproc runs test-infrastructure programs (a sandbox's control
// plane, the Flux controllers) as children that die with the test process:
// each one's output goes to a log file, the kernel kills it when the test
// process dies without stopping it (on Linux), and Stop asks it to exit
// before killing it.
package childproc

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

// exitTailLines is how much of the log Exited quotes.
const exitTailLines = 5

// Process is a running (or ended) child program.
type Process struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{} // closed once Wait returned; err is set by then
	err  error
}

// Start starts the program at path with args, its stdout and stderr going
// to logFile (created or truncated). env is the child's whole environment;
// nil means it inherits this process's.
func Start(path, logFile string, env, args []string) (*Process, error) {
	p := &Process{name: filepath.Base(path), log: logFile, done: make(chan struct{})}
	f, err := os.Create(logFile)
	if err != nil {
		return nil, fmt.Errorf("create log file for %s: %w", p.name, err)
	}
	p.cmd = exec.Command(path, args...)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = f, f
	setParentDeathSignal(p.cmd)
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", p.name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// Name is the base name of the program.
func (p *Process) Name() string { return p.name }

// LogFile is the path of the file the program writes its output to.
func (p *Process) LogFile() string { return p.log }

// PID is the child's process ID.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited reports, without blocking, whether the process has ended: nil while
// it runs, else an error with its exit status and the end of its log.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v): %s", p.name, p.err, p.tail(exitTailLines))
	default:
		return nil
	}
}

// tail returns the last n lines of the log, joined by " | " to fit in an
// error message.
func (p *Process) tail(n int) string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Stop sends SIGTERM, then SIGKILL if the process has not exited within
// grace, and waits for the exit. An exit status, the signals' own included,
// is not an error: only a failure to wait for the process is. Stopping an
// ended process does nothing, so Stop may be called more than once.
func (p *Process) Stop(grace time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	var exit *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exit) {
		return fmt.Errorf("stop %s: %w", p.name, p.err)
	}
	return nil
}
