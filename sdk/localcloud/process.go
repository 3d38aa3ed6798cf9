package localcloud

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processes are a cluster's programs in start order; the starter, which
// starts the others, comes first.
var processes = []string{"starter", "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

// stopGrace is how long a process gets to exit on SIGTERM before SIGKILL.
const stopGrace = 10 * time.Second

// spawn starts path with args as a detached process (its own session, no
// parent-death signal), its output in <name>.log, and records its PID in
// <name>.pid. The process survives its caller. Every argument list names
// the cluster directory, which is how alive tells a recycled PID apart.
func (c cluster) spawn(name, path string, args ...string) (*exec.Cmd, error) {
	log, err := os.Create(c.path(name + ".log"))
	if err != nil {
		return nil, fmt.Errorf("log file for %s: %w", name, err)
	}
	defer log.Close() // the child holds its own descriptor
	cmd := exec.Command(path, args...)
	cmd.Dir = c.dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	if err := os.WriteFile(c.path(name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	return cmd, nil
}

// pid reads <name>.pid; 0 when there is none.
func (c cluster) pid(name string) int {
	b, err := os.ReadFile(c.path(name + ".pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// alive reports whether pid runs a program of this cluster: its command
// line names the cluster directory. An empty command line is a zombie
// (gone) or a process in the middle of exec, whose new arguments are not
// in place yet: right after spawn returns, under load, for long enough
// that reading it as "exited" failed starts with an empty log.
func (c cluster) alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return false
	}
	if len(b) == 0 {
		return running(pid)
	}
	return names(b, c.dir)
}

// running reports whether pid exists and is not a zombie, from the state
// field of /proc/<pid>/stat (after the command name in parentheses).
func running(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	state := b[i+2]
	return state != 'Z' && state != 'X'
}

// names reports whether a command line names dir or a path under it (and
// not a sibling that only starts with the same letters: cluster "a" must
// not match the processes of cluster "a-2").
func names(cmdline []byte, dir string) bool {
	for rest := cmdline; ; {
		i := bytes.Index(rest, []byte(dir))
		if i < 0 {
			return false
		}
		rest = rest[i+len(dir):]
		if len(rest) == 0 || rest[0] == '/' || rest[0] == 0 {
			return true
		}
	}
}

// running lists the cluster's processes that are alive, by name.
func (c cluster) running() map[string]int {
	out := map[string]int{}
	for _, name := range processes {
		if pid := c.pid(name); c.alive(pid) {
			out[name] = pid
		}
	}
	return out
}

// stop ends every process of the cluster: the starter first (so it starts
// nothing more), then the others in reverse start order, each with SIGTERM
// and, after stopGrace, SIGKILL.
func (c cluster) stop() error {
	order := append([]string{processes[0]}, reversed(processes[1:])...)
	var errs []error
	for _, name := range order {
		pid := c.pid(name)
		if !c.alive(pid) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGTERM)
		if !c.waitGone(pid, stopGrace) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			if !c.waitGone(pid, stopGrace) {
				errs = append(errs, fmt.Errorf("%s (pid %d) did not exit after SIGKILL", name, pid))
			}
		}
	}
	// A process whose PID file was never written (its starter was killed
	// between starting it and recording it) still names the directory.
	for _, pid := range pidsNaming(c.dir) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if !c.waitGone(pid, stopGrace) {
			errs = append(errs, fmt.Errorf("pid %d did not exit after SIGKILL", pid))
		}
	}
	return errors.Join(errs...)
}

func (c cluster) waitGone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for c.alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func reversed(s []string) []string {
	out := make([]string, 0, len(s))
	for i := len(s) - 1; i >= 0; i-- {
		out = append(out, s[i])
	}
	return out
}

// logTail is the last n lines of <name>.log joined by " | ".
func (c cluster) logTail(name string, n int) string {
	b, _ := os.ReadFile(c.path(name + ".log"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// ProcessesUnder lists the running processes whose command line names dir,
// as "pid: command line", for leak checks: every process of a cluster
// under dir names its directory. Zombies have no command line and are not
// listed.
func ProcessesUnder(dir string) []string {
	var out []string
	for _, pid := range pidsNaming(dir) {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		out = append(out, strconv.Itoa(pid)+": "+strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}

// pidsNaming lists the running processes other than this one whose
// command line names dir.
func pidsNaming(dir string) []int {
	var out []int
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if b, err := os.ReadFile(f); err == nil && pid != os.Getpid() && names(b, dir) {
			out = append(out, pid)
		}
	}
	return out
}
