package plugin_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// The local plugin is upgraded in place while an Update it started is
// running: a real local cluster is provisioned and scaled 1 → 3 through
// the version the host started with, the new version is renamed over it
// at once, and the Update's operation is followed to its end through the
// new process (every call after the switch reaches it), with the node
// count read on the cluster's own API server. Operation IDs are the
// plugin's contract: the new process finds the Update from its ID alone.
func TestLocalPluginUpgradedInPlaceDuringAnUpdate(t *testing.T) {
	bin, err := localcloud.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(localcloud.TestbinEnv, bin)
	root := t.TempDir()
	t.Setenv(localcloud.RootEnv, root)
	t.Cleanup(func() { _ = localcloud.RemoveAll(root) })
	dir, v2 := t.TempDir(), filepath.Join(t.TempDir(), "kubeopera-provider-local")
	for file, v := range map[string]string{filepath.Join(dir, "kubeopera-provider-local"): "1.0.0", v2: "2.0.0"} {
		if err := goBuild(file, "../plugins/local", "-X main.version="+v); err != nil {
			t.Fatal(err)
		}
	}
	h, logs := openHost(t, plugin.Options{Dir: dir, RescanInterval: 50 * time.Millisecond})
	p, err := h.Provider("local")
	if err != nil {
		t.Fatal(err)
	}
	version := func() string { return h.Plugins()[0].Info.PluginVersion }

	created, err := p.Provision(ctxTimeout(t, 30*time.Second), sdk.ProvisionRequest{ClusterID: "upgraded", Inputs: map[string]string{"nodeCount": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if st := follow(t, p, created.ID); st.State != sdk.Succeeded {
		t.Fatalf("provision ended %s: %s", st.State, st.Message)
	}
	// kwok, which makes new nodes Ready, is paused: the Update stays
	// Running until it goes on, whatever this machine's speed.
	kwok := pidIn(t, filepath.Join(root, "upgraded", "kwok.pid"))
	if err := syscall.Kill(kwok, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(kwok, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	oldPID := h.Plugins()[0].PID
	op, err := p.Update(ctxTimeout(t, time.Minute), sdk.UpdateRequest{ClusterID: "upgraded", NodeCount: 3,
		CurrentInputs: map[string]string{"nodeCount": "1"}})
	if err != nil {
		t.Fatalf("Update through version %s: %v", version(), err)
	}
	installByRename(t, v2, filepath.Join(dir, "kubeopera-provider-local"))
	waitUntil(t, "the host serves version 2.0.0", func() bool { return version() == "2.0.0" })
	if pid := h.Plugins()[0].PID; pid == oldPID {
		t.Fatalf("the plugin's process is still %d after the upgrade", pid)
	}
	first, err := p.Status(ctxTimeout(t, 30*time.Second), sdk.StatusRequest{OperationID: op.ID})
	if err != nil {
		t.Fatalf("the Update %s asked of the new process: %v", op.ID, err)
	}
	if first.State != sdk.Running {
		t.Fatalf("the Update's first status from version 2.0.0 is %s (%s), want RUNNING: the switch was to fall inside it", first.State, first.Message)
	}
	t.Logf("the Update's first status from version 2.0.0: %s (%s)", first.State, first.Message)
	resume()
	st := follow(t, p, op.ID)
	if st.State != sdk.Succeeded {
		t.Fatalf("the Update started by the old process ended %s on the new one: %s", st.State, st.Message)
	}
	nodes, err := localcloud.CountNodes(context.Background(), root, "upgraded")
	if err != nil || nodes.Total != 3 || nodes.Ready != 3 {
		t.Errorf("the cluster's own API server after the Update: %+v, %v; want 3 nodes, 3 Ready", nodes, err)
	}
	deleted, err := p.Destroy(ctxTimeout(t, time.Minute), sdk.DestroyRequest{ClusterID: "upgraded"})
	if err != nil {
		t.Fatal(err)
	}
	if st := follow(t, p, deleted.ID); st.State != sdk.Succeeded {
		t.Fatalf("destroy ended %s: %s", st.State, st.Message)
	}
	if left := localcloud.ProcessesUnder(root); len(left) > 0 {
		t.Errorf("processes left after Destroy: %v", left)
	}
	if !strings.Contains(logs.String(), "provider upgraded in place") {
		t.Errorf("the host did not log the upgrade:\n%s", logs.String())
	}
}

// pidIn reads the process ID in file.
func pidIn(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return pid
}

// follow reads op's Status until it ends, for at most 2 minutes.
func follow(t *testing.T, p sdk.Provider, op string) sdk.OperationStatus {
	t.Helper()
	var st sdk.OperationStatus
	waitFor := time.Now().Add(2 * time.Minute)
	for time.Now().Before(waitFor) {
		var err error
		if st, err = p.Status(ctxTimeout(t, 30*time.Second), sdk.StatusRequest{OperationID: op}); err != nil {
			t.Fatalf("status of %s: %v", op, err)
		}
		if st.State == sdk.Succeeded || st.State == sdk.Failed {
			return st
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("operation %s still %s (%s) after 2 minutes", op, st.State, st.Message)
	return st
}
