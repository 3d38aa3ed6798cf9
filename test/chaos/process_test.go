package chaos

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// component is `bin/kubeopera server` or `bin/kubeopera controller` run as
// its own process, with its output appended to a log file so a restarted
// process continues the same log.
type component struct {
	name string
	args []string
	env  []string
	log  string
	// ready is polled after every start; nil: started is enough.
	ready func(ctx context.Context) error

	cmd  *exec.Cmd
	done chan error
}

func (c *component) start(ctx context.Context) error {
	log, err := os.OpenFile(c.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	fmt.Fprintf(log, "--- chaos: start %s at %s\n", c.name, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(c.args[0], c.args[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = c.env, log, log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", c.name, err)
	}
	c.cmd, c.done = cmd, make(chan error, 1)
	go func(done chan error) { done <- cmd.Wait() }(c.done)
	if c.ready == nil {
		return nil
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-c.done:
			c.done <- err
			return false, fmt.Errorf("%s exited at start: %v (log %s)", c.name, err, c.log)
		default:
		}
		last = c.ready(ctx)
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("%s not ready: %w (last: %v)", c.name, err, last)
	}
	return nil
}

// kill SIGKILLs the process and reaps it.
func (c *component) kill() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Kill()
	<-c.done
	c.cmd = nil
}

// stop asks the process to end (SIGTERM) and kills it after 30 s.
func (c *component) stop() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	c.cmd = nil
}

func (c *component) pid() int {
	if c.cmd == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// httpReady answers nil once GET url answers 200.
func httpReady(url string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %d", url, resp.StatusCode)
		}
		return nil
	}
}

// children lists the processes whose parent is pid and whose program is
// named base.
func children(pid int, base string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if parentOf(child) != pid {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && filepath.Base(exe) == base {
			out = append(out, child)
		}
	}
	return out
}

// parentOf reads the parent PID from /proc/<pid>/stat (the field after the
// state, which follows the command name in parentheses).
func parentOf(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// pidsNaming lists the live processes whose command line names dir or a
// path under it: what is left of a local cluster whose directory is gone.
func pidsNaming(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		// A process whose directory was removed under it reads "<dir> (deleted)".
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if cwd = strings.TrimSuffix(cwd, " (deleted)"); cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			out = append(out, pid)
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		for _, arg := range strings.Split(string(b), "\x00") {
			if arg == dir || strings.HasPrefix(arg, dir+"/") || strings.Contains(arg, "="+dir+"/") {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
