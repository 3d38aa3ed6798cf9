package fluxrun

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

// process is one controller we run; its output goes to a log file.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

func startProcess(bin, logDir, name string, env, args []string) (*process, error) {
	p := &process{name: name, log: filepath.Join(logDir, name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		return nil, fmt.Errorf("create log file for %s: %w", name, err)
	}
	p.cmd = exec.Command(filepath.Join(bin, name), args...)
	p.cmd.Env = env
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
	return p, nil
}

// exited reports, without blocking, whether the process has ended and why.
func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v): %s", p.name, p.err, p.tail(5))
	default:
		return nil
	}
}

// tail returns the last n lines of the process's log.
func (p *process) tail(n int) string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// stop sends SIGTERM, then SIGKILL after 10 seconds (the controllers drain
// their queues on SIGTERM), and waits for the exit.
func (p *process) stop() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	var exit *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exit) {
		return fmt.Errorf("stop %s: %w", p.name, p.err)
	}
	return nil
}
