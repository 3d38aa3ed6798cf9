package node

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// The real-node tests share one sandbox and one node, started by the first
// test that needs them and stopped after the last.
var shared struct {
	once sync.Once
	s    *sandbox.Sandbox
	n    *Node
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.n != nil {
		if err := shared.n.Stop(context.Background(), shared.s); err != nil {
			fmt.Fprintln(os.Stderr, "stop node:", err)
			code = 1
		}
	}
	if shared.s != nil {
		if err := shared.s.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop sandbox:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// requireNode skips the test unless KUBEOPERA_TEST_NODE=1 (make test-node:
// it needs root and hack/build-node.sh), else returns the shared sandbox
// and node.
func requireNode(t *testing.T) (*sandbox.Sandbox, *Node) {
	t.Helper()
	if os.Getenv("KUBEOPERA_TEST_NODE") != "1" {
		t.Skip("a real node (kubelet, containerd, runc) needs root and hack/build-node.sh: run make test-node (KUBEOPERA_TEST_NODE=1)")
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		start := time.Now()
		shared.s, shared.err = sandbox.Start(ctx, sandbox.Options{Workloads: true,
			APIServerNames: []string{"10.0.0.1", "kubernetes.default.svc"}})
		if shared.err != nil {
			return
		}
		images, err := ImagesDir()
		if err != nil {
			shared.err = err
			return
		}
		shared.n, shared.err = Start(ctx, shared.s, Options{Name: "node-1", Index: 1 + os.Getpid()%250,
			Images: []string{filepath.Join(images, "pause-oci"), filepath.Join(images, "terraform-oci")},
			Labels: map[string]string{"kubeopera.io/real-node": "true"}})
		fmt.Fprintf(os.Stderr, "sandbox and node up in %s\n", time.Since(start).Round(100*time.Millisecond))
	})
	if shared.err != nil {
		t.Fatalf("start the sandbox and its node: %v%s", shared.err, logsHint())
	}
	return shared.s, shared.n
}

func logsHint() string {
	if shared.n == nil || shared.n.Dir() == "" {
		return ""
	}
	return "\nnode logs in " + shared.n.Dir()
}

// imageName is the name an OCI image layout gives its image.
func imageName(t *testing.T, layout string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(layout, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Manifests []struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(b, &idx); err != nil || len(idx.Manifests) != 1 {
		t.Fatalf("index.json of %s: %v (%d manifests)", layout, err, len(idx.Manifests))
	}
	return idx.Manifests[0].Annotations["io.containerd.image.name"]
}

func terraformImage(t *testing.T) string {
	t.Helper()
	dir, err := ImagesDir()
	if err != nil {
		t.Fatal(err)
	}
	return imageName(t, filepath.Join(dir, "terraform-oci"))
}

// kubectl runs the real kubectl against the sandbox.
func kubectl(t *testing.T, s *sandbox.Sandbox, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", s.KubeconfigPath}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
