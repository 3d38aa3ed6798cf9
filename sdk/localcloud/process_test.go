package localcloud

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestNamesMatchesTheDirectoryNotASibling(t *testing.T) {
	for _, tc := range []struct {
		cmdline string
		want    bool
	}{
		{"etcd\x00--data-dir=/c/a/etcd\x00", true},
		{"kubeopera-provider-local\x00start-cluster\x00/c/a\x00", true},
		{"kubeopera-provider-local\x00start-cluster\x00/c/a", true},
		{"etcd\x00--data-dir=/c/a-2/etcd\x00", false},
		{"etcd\x00--data-dir=/c/a-2/etcd\x00--x=/c/a/y\x00", true},
		{"sleep\x001\x00", false},
	} {
		if got := names([]byte(tc.cmdline), "/c/a"); got != tc.want {
			t.Errorf("names(%q, /c/a) = %v, want %v", tc.cmdline, got, tc.want)
		}
	}
}

// A child that has exited but was not waited for is a zombie: gone, though
// its PID still exists; a running child naming the directory is alive.
func TestAliveTellsZombiesFromRunningProcesses(t *testing.T) {
	dir := t.TempDir()
	c := cluster{dir: dir}
	// The child must really run: GNU sleep refuses a stray path argument
	// ("invalid time interval") and exits at once, which raced the check
	// below. Run sleep under a name inside dir instead, so its command line
	// names dir and it sleeps.
	sleepPath, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sleepPath, filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	sleeper := exec.Command(filepath.Join(dir, "x"), "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	if !c.alive(sleeper.Process.Pid) {
		t.Errorf("a running process naming %s is not alive", dir)
	}
	quitter := exec.Command("true")
	if err := quitter.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = quitter.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for running(quitter.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("an exited child still reads as running")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if c.alive(quitter.Process.Pid) {
		t.Error("a zombie reads as alive")
	}
}
