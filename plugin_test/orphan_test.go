package plugin_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/ochestra-tech/kubeopera/host/plugin"
)

// When this variable is set, the test binary acts as a host process that
// prints its plugins' PIDs and waits to be killed.
const hostHelperEnv = "KUBEOPERA_TEST_HOST_HELPER_DIR"

func init() {
	dir := os.Getenv(hostHelperEnv)
	if dir == "" {
		return
	}
	h, err := plugin.Open(context.Background(), plugin.Options{Dir: dir, Logger: hclog.NewNullLogger()})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for _, p := range h.Plugins() {
		fmt.Println(p.PID)
	}
	fmt.Println("ready")
	select {}
}

func TestPluginsDieWhenTheHostIsKilled(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hostHelperEnv+"="+pluginDir(t, productPlugins...))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatalf("helper host: %s", sc.Text())
		}
		pids = append(pids, pid)
	}
	if len(pids) != 4 {
		t.Fatalf("helper host started %d plugins, want 4", len(pids))
	}
	_ = cmd.Process.Kill() // SIGKILL: the host gets no chance to clean up
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for {
			err := syscall.Kill(pid, 0)
			if errors.Is(err, syscall.ESRCH) || isZombie(pid) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("plugin pid %d outlived its SIGKILLed host", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// isZombie reports whether pid has exited but is not reaped yet: its parent
// died, so init reaps it in its own time.
func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}
