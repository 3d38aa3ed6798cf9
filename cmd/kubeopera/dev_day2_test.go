package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// day2 changes the Ready local cluster id through the REST API and the
// controller: scale to 3 nodes and back to 1 (each checked on the target:
// exactly that many Ready nodes), an upgrade the local plugin cannot make
// (409 with the reason), then a teardown through the plugin's Destroy,
// after which the row is gone and the cluster's processes and files too.
func (d *devProcess) day2(t *testing.T, root, id, name string) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(root, "tmp", "kubeopera-dev-*", "local-clusters"))
	if len(dirs) != 1 {
		t.Fatalf("local clusters directories under %s: %v, want one", root, dirs)
	}
	clusters := dirs[0]
	for _, n := range []int{3, 1} {
		start := time.Now()
		code, body := d.call(t, http.MethodPatch, "/api/v1/clusters/"+id, map[string]any{"nodeCount": n})
		if code != http.StatusAccepted {
			t.Fatalf("scale to %d: %d %v", n, code, body)
		}
		if body["status"] != "Updating" {
			t.Errorf("scale to %d answered phase %v, want Updating (derived from the request recorded on the HostCluster)", n, body["status"])
		}
		phases := d.recordPhases(t, id)
		d.waitNodes(t, id, n)
		checkNeverBack(t, phases())
		if ready := readyNodes(t, clusters, id); ready != n {
			t.Errorf("after scaling to %d, the target has %d Ready nodes", n, ready)
		}
		t.Logf("scaled to %d nodes in %s", n, time.Since(start).Round(time.Second))
	}
	code, body := d.call(t, http.MethodPatch, "/api/v1/clusters/"+id, map[string]any{"kubernetesVersion": "1.38"})
	if detail, _ := body["detail"].(string); code != http.StatusConflict || !strings.Contains(detail, `"upgrade"`) {
		t.Errorf("upgrade of a local cluster: %d %v; want 409 naming the missing upgrade capability", code, body)
	}

	start := time.Now()
	code, body = d.call(t, http.MethodPost, "/api/v1/clusters/"+id+"/teardown", map[string]any{"confirmName": name})
	if code != http.StatusAccepted {
		t.Fatalf("teardown: %d %v", code, body)
	}
	for {
		code, c := d.call(t, http.MethodGet, "/api/v1/clusters/"+id, nil)
		if code == http.StatusNotFound {
			break
		}
		if time.Since(start) > 3*time.Minute {
			t.Fatalf("cluster still listed 3 minutes after the teardown: %d %v", code, c)
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("torn down in %s", time.Since(start).Round(time.Second))
	if left := localcloud.ProcessesUnder(clusters); len(left) > 0 {
		t.Errorf("processes left after the teardown: %v", left)
	}
	if _, err := os.Stat(filepath.Join(clusters, id)); !os.IsNotExist(err) {
		t.Errorf("the cluster's directory is left after the teardown: %v", err)
	}
}

// waitNodes polls the cluster through the REST API until it is Ready with
// n nodes, all Ready.
func (d *devProcess) waitNodes(t *testing.T, id string, n int) {
	t.Helper()
	start := time.Now()
	for {
		code, c := d.call(t, http.MethodGet, "/api/v1/clusters/"+id, nil)
		nodes, _ := c["node_count"].(float64)
		ready, _ := c["ready_node_count"].(float64)
		if code == http.StatusOK && c["status"] == "Ready" && int(nodes) == n && int(ready) == n {
			return
		}
		if time.Since(start) > 5*time.Minute {
			t.Fatalf("cluster not Ready with %d nodes after 5 minutes: %d %v", n, code, c)
		}
		time.Sleep(time.Second)
	}
}

// readyNodes counts the Ready nodes of local cluster id, asked of its own
// API server.
func readyNodes(t *testing.T, clusters, id string) int {
	t.Helper()
	kc, err := localcloud.Kubeconfig(clusters, id)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := 0
	for _, node := range nodes.Items {
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue && node.DeletionTimestamp == nil {
				ready++
			}
		}
	}
	return ready
}

// recordPhases reads the cluster every 50 ms (as a dashboard would) until
// the returned function is called, which returns the phases read in order.
func (d *devProcess) recordPhases(t *testing.T, id string) func() []string {
	t.Helper()
	var seen []string
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if code, c := d.call(t, http.MethodGet, "/api/v1/clusters/"+id, nil); code == http.StatusOK {
				phase, _ := c["status"].(string)
				seen = append(seen, phase)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() []string {
		close(stop)
		<-done
		return seen
	}
}

// checkNeverBack: after a change was accepted the phase reads Updating at
// least once and, once it left Updating, never comes back to it (the
// server derives the phase from the live HostCluster; it writes none).
func checkNeverBack(t *testing.T, phases []string) {
	t.Helper()
	updating, left := 0, false
	for i, p := range phases {
		switch {
		case p == "Updating" && left:
			t.Errorf("the phase went back to Updating at read %d of %d: %v", i, len(phases), compact(phases))
			return
		case p == "Updating":
			updating++
		default:
			left = true
		}
	}
	if updating == 0 {
		t.Errorf("no read of %d saw Updating: %v", len(phases), compact(phases))
	}
	t.Logf("%d reads, %d saw Updating: %v", len(phases), updating, compact(phases))
}

// compact is phases with runs collapsed: Updating×12 Ready×3.
func compact(phases []string) []string {
	var out []string
	for i := 0; i < len(phases); {
		j := i
		for j < len(phases) && phases[j] == phases[i] {
			j++
		}
		out = append(out, fmt.Sprintf("%s×%d", phases[i], j-i))
		i = j
	}
	return out
}
