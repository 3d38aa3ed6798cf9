package childproc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStop(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	for _, tc := range []struct {
		name   string
		script string
		grace  time.Duration
		want   string // Exited's error after Stop
	}{{
		name:   "a child that exits on SIGTERM is not killed",
		script: `echo ready; exec sleep 60`,
		grace:  time.Minute,
		want:   "sh exited (signal: terminated): ready",
	}, {
		name:   "a child that ignores SIGTERM is killed once the grace period is over",
		script: `trap "" TERM; echo ready; exec sleep 60`,
		grace:  200 * time.Millisecond,
		want:   "sh exited (signal: killed): ready",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Start(sh, filepath.Join(t.TempDir(), "sh.log"), nil, []string{"-c", tc.script})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Stop(0) })
			awaitLog(t, p, "ready") // the trap is set: SIGTERM cannot come too early
			if err := p.Exited(); err != nil {
				t.Fatalf("Exited before Stop: %v", err)
			}

			start := time.Now()
			if err := p.Stop(tc.grace); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			took := time.Since(start)

			if err := p.Exited(); err == nil || err.Error() != tc.want {
				t.Errorf("Exited after Stop = %v, want %q", err, tc.want)
			}
			if killed := strings.Contains(tc.want, "killed"); killed && took < tc.grace {
				t.Errorf("killed after %v, before the grace period of %v", took, tc.grace)
			}
			if err := p.Stop(tc.grace); err != nil {
				t.Errorf("second Stop: %v", err)
			}
		})
	}
}

// awaitLog waits until the last line of p's log is line; the child gives no
// other sign of having got that far.
func awaitLog(t *testing.T, p *Process, line string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.tail(1) != line {
		if err := p.Exited(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never wrote %q", p.Name(), line)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRepoRootFindsTheModuleRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "internal", "childproc"); wd != want {
		t.Errorf("RepoRoot() = %s; the test runs in %s, want it in %s", root, wd, want)
	}
}
