package plugin_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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

// A plugin on the local cloud is upgraded in place while an Update it
// started is running: a real local cluster is provisioned and scaled 1 → 3
// through the build the host started with, a new build is renamed over it
// at once, and the Update's operation is followed to its end through the
// new process (every call after the switch reaches it), with the node
// count read on the cluster's own API server. Operation IDs are the
// plugin's contract: the new process finds the Update from its ID alone.
// Both the product's local plugin and the SDK README's outside plugin
// (sdk/localcloud/example, built on the public SDK only) are run.
func TestPluginOnTheLocalCloudUpgradedInPlaceDuringAnUpdate(t *testing.T) {
	for _, tc := range []struct {
		name, dir, nodes string
	}{
		{"local", "../plugins/local", "nodeCount"},
		{"fakecloud", "../sdk/localcloud/example", "nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) { upgradeDuringAnUpdate(t, tc.name, tc.dir, tc.nodes) })
	}
}

func upgradeDuringAnUpdate(t *testing.T, name, src, nodesInput string) {
	bin, err := localcloud.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(localcloud.TestbinEnv, bin)
	root := t.TempDir()
	t.Setenv(localcloud.RootEnv, root)
	t.Cleanup(func() { _ = localcloud.RemoveAll(root) })
	file := "kubeopera-provider-" + name
	dir, v2 := t.TempDir(), filepath.Join(t.TempDir(), file)
	// Two builds that differ (the local plugin in its version, both in
	// their build ID), so the host sees a new file.
	for out, v := range map[string]string{filepath.Join(dir, file): "1.0.0", v2: "2.0.0"} {
		if err := buildIn(src, out, "-buildid=kubeopera-"+v+" -X main.version="+v); err != nil {
			t.Fatal(err)
		}
	}
	h, logs := openHost(t, plugin.Options{Dir: dir, RescanInterval: 50 * time.Millisecond})
	p, err := h.Provider(name)
	if err != nil {
		t.Fatal(err)
	}
	checksum := func() string { return h.Plugins()[0].Checksum }
	first := checksum()

	created, err := p.Provision(ctxTimeout(t, 30*time.Second), sdk.ProvisionRequest{ClusterID: "upgraded", Inputs: map[string]string{nodesInput: "1"}})
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
		CurrentInputs: map[string]string{nodesInput: "1"}})
	if err != nil {
		t.Fatalf("Update through the first build: %v", err)
	}
	installByRename(t, v2, filepath.Join(dir, file))
	waitUntil(t, "the host serves the new build", func() bool { return checksum() != first })
	if pid := h.Plugins()[0].PID; pid == oldPID {
		t.Fatalf("the plugin's process is still %d after the upgrade", pid)
	}
	after, err := p.Status(ctxTimeout(t, 30*time.Second), sdk.StatusRequest{OperationID: op.ID})
	if err != nil {
		t.Fatalf("the Update %s asked of the new process: %v", op.ID, err)
	}
	if after.State != sdk.Running {
		t.Fatalf("the Update's first status from the new build is %s (%s), want RUNNING: the switch was to fall inside it", after.State, after.Message)
	}
	t.Logf("the Update's first status from the new build: %s (%s)", after.State, after.Message)
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

// buildIn builds the main package in dir (its own module's, or the root
// module's) into out with ldflags, as `make plugins` does.
func buildIn(dir, out, ldflags string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w "+ldflags, "-o", out, ".")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %v\n%s", dir, err, b)
	}
	return nil
}
