package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// world is a built plugin binary and a directory for its clusters, removed
// with everything in it when the test ends.
type world struct {
	binary string
	env    []string
	root   string
}

func newWorld(t *testing.T) world {
	t.Helper()
	bin, err := localcloud.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	w := world{binary: filepath.Join(t.TempDir(), "kubeopera-provider-local"), root: t.TempDir()}
	if out, err := exec.Command("go", "build", "-o", w.binary, ".").CombinedOutput(); err != nil {
		t.Fatalf("build the plugin: %v\n%s", err, out)
	}
	w.env = []string{"KUBEOPERA_LOCAL_CLUSTERS_DIR=" + w.root, "KUBEOPERA_TESTBIN_DIR=" + bin}
	t.Cleanup(func() {
		if err := localcloud.RemoveAll(w.root); err != nil {
			t.Errorf("remove the test's clusters: %v", err)
		}
	})
	return w
}

// connect starts the plugin as the host does; kill ends that process.
func (w world) connect(t *testing.T) (sdk.Provider, func()) {
	t.Helper()
	cmd := exec.Command(w.binary)
	cmd.Env = append(os.Environ(), w.env...)
	client := goplugin.NewClient(sdk.ClientConfig(cmd))
	t.Cleanup(client.Kill)
	p, err := sdk.Connect(client)
	if err != nil {
		t.Fatal(err)
	}
	return p, client.Kill
}

func TestConformance(t *testing.T) {
	w := newWorld(t)
	sdktest.Run(t, sdktest.Config{Binary: w.binary, ValidInputs: map[string]string{"nodeCount": "1"}, Env: w.env,
		Timeout: 30 * time.Second})
}

// A cluster provisioned through one plugin process is found again by the
// next (the plugin keeps no state), its kubeconfig reaches a cluster with
// the requested nodes, Update scales it up and down for real, and Destroy
// leaves no process and no file.
func TestLifecycleOverGoPlugin(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	p, kill := w.connect(t)
	if info, err := p.GetInfo(ctx); err != nil || !strings.Contains(info.DisplayName, "development") {
		t.Errorf("GetInfo = %+v, %v; want it marked for development", info, err)
	}
	op, err := p.Provision(ctx, sdk.ProvisionRequest{ClusterID: "dev1", Inputs: map[string]string{"nodeCount": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	kill() // the cluster does not depend on the plugin process that started it
	p, _ = w.connect(t)
	st := waitState(t, p, op.ID, 3*time.Minute)
	if st.State != sdk.Succeeded {
		t.Fatalf("provision ended %s: %s", st.State, st.Message)
	}
	kc, err := p.Kubeconfig(ctx, sdk.KubeconfigRequest{OperationID: op.ID})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc.Data)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Fatalf("nodes through the returned kubeconfig: %v, %d listed, want 2", err, len(nodes.Items))
	}
	for _, n := range []int{3, 1} {
		scaleTo(t, p, cs, "dev1", n)
	}
	_, err = p.(sdk.Updater).Update(ctx, sdk.UpdateRequest{ClusterID: "dev1", KubernetesVersion: "v1.38.0"})
	if !errors.Is(err, sdk.ErrUnimplemented) {
		t.Errorf("an upgrade of a local cluster = %v, want Unimplemented (the sandbox has one version's binaries)", err)
	}
	dop, err := p.Destroy(ctx, sdk.DestroyRequest{ClusterID: "dev1"})
	if err != nil {
		t.Fatal(err)
	}
	if st := waitState(t, p, dop.ID, time.Minute); st.State != sdk.Succeeded {
		t.Fatalf("destroy ended %s: %s", st.State, st.Message)
	}
	if left := localcloud.ProcessesUnder(w.root); len(left) > 0 {
		t.Errorf("processes left after Destroy: %v", left)
	}
	if entries, _ := os.ReadDir(w.root); len(entries) > 0 {
		t.Errorf("files left after Destroy: %v", entries)
	}
	if _, err := p.Status(ctx, sdk.StatusRequest{OperationID: op.ID}); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("Status of the provision after Destroy = %v, want NotFound", err)
	}
	if _, err := p.Destroy(ctx, sdk.DestroyRequest{ClusterID: "dev1"}); err != nil {
		t.Errorf("second Destroy: %v", err)
	}
}

// scaleTo scales cluster id to n nodes through the plugin and checks that
// the cluster's API server has exactly n Ready nodes when Status says
// the scale succeeded.
func scaleTo(t *testing.T, p sdk.Provider, cs kubernetes.Interface, id string, n int) {
	t.Helper()
	op, err := p.(sdk.Updater).Update(context.Background(), sdk.UpdateRequest{ClusterID: id, NodeCount: n})
	if err != nil {
		t.Fatalf("scale to %d: %v", n, err)
	}
	st := waitState(t, p, op.ID, time.Minute)
	if st.State != sdk.Succeeded || st.NodeCount != n {
		t.Fatalf("scale to %d ended %s with %d nodes: %s", n, st.State, st.NodeCount, st.Message)
	}
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := 0
	for _, node := range nodes.Items {
		for _, c := range node.Status.Conditions {
			if c.Type == "Ready" && c.Status == "True" && node.DeletionTimestamp == nil {
				ready++
			}
		}
	}
	if len(nodes.Items) != n || ready != n {
		t.Errorf("after scaling to %d: %d nodes, %d Ready", n, len(nodes.Items), ready)
	}
}

func waitState(t *testing.T, p sdk.Provider, op string, within time.Duration) sdk.OperationStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, err := p.Status(context.Background(), sdk.StatusRequest{OperationID: op})
		if err != nil {
			t.Fatal(err)
		}
		if st.State == sdk.Succeeded || st.State == sdk.Failed {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation %s still %s (%s) after %s", op, st.State, st.Message, within)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
