package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// livingAPIServer finds the kube-apiserver of a local cluster under root,
// preferring the clusters named in prefer (this round's): its directory and
// PID, or "" when none runs.
func livingAPIServer(root string, prefer []string) (string, int) {
	var dirs []string
	for _, id := range prefer {
		dirs = append(dirs, filepath.Join(root, id))
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		dirs = append(dirs, filepath.Join(root, e.Name()))
	}
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "kube-apiserver.pid"))
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if pid > 0 && len(commandLine(pid)) > 0 && strings.Contains(strings.Join(commandLine(pid), " "), dir) {
			return dir, pid
		}
	}
	return "", 0
}

func commandLine(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// killAndRestartAPIServer SIGKILLs a local cluster's kube-apiserver and
// starts it again with the same command line in the same directory, as a
// supervisor (a kubelet for a static pod) would: detached, its output
// appended to its log, its PID file rewritten. The local provider itself
// restarts nothing; what a dead API server does to the pipeline is what
// this target probes, and the restart is the environment's part.
func killAndRestartAPIServer(dir string, pid int) error {
	args := commandLine(pid)
	if len(args) == 0 {
		return fmt.Errorf("kube-apiserver %d exited before it could be killed", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill kube-apiserver %d: %w", pid, err)
	}
	for deadline := time.Now().Add(10 * time.Second); running(pid) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(dir); err != nil {
		return nil // torn down meanwhile: nothing to restart
	}
	log, err := os.OpenFile(filepath.Join(dir, "kube-apiserver.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("restart kube-apiserver: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // reap it whenever the cluster's removal stops it
	go stopWithDir(cmd.Process, dir, exited)
	return os.WriteFile(filepath.Join(dir, "kube-apiserver.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
}

// stopWithDir kills proc once dir is gone, as a kubelet stops a static
// pod whose manifest was removed: a restart that raced the cluster's
// removal (after it read the PID files) must not count as the provider's
// leak.
func stopWithDir(proc *os.Process, dir string, exited <-chan struct{}) {
	for {
		select {
		case <-exited:
			return
		case <-time.After(time.Second):
		}
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			_ = proc.Kill()
			return
		}
	}
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}
