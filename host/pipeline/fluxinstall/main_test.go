package fluxinstall_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// sb is the target cluster of every test: a sandbox whose one simulated
// node (kwok) runs pods, so Deployments become Available.
var sb *sandbox.Sandbox

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	var err error
	sb, err = sandbox.Start(ctx, sandbox.Options{Workloads: true, Nodes: []sandbox.Node{{Name: "w1"}}})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "start sandbox: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := sb.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stop sandbox: %v\n", err)
	}
	os.Exit(code)
}

// poll calls check until it says done, failing the test with the last
// detail when ctx ends first.
func poll(ctx context.Context, t *testing.T, what string, check func() (bool, string)) {
	t.Helper()
	detail := ""
	for {
		var done bool
		if done, detail = check(); done {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not reached before the deadline; last: %s", what, detail)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitReady polls Health until Flux in namespace of cluster c is Ready and returns how long that took.
func waitReady(ctx context.Context, t *testing.T, c kubernetes.Interface, namespace string) time.Duration {
	t.Helper()
	start := time.Now()
	poll(ctx, t, "Flux in "+namespace+" Ready", func() (bool, string) {
		r, err := fluxinstall.Health(ctx, c, namespace)
		if err != nil {
			t.Fatalf("health: %v", err)
		}
		return r.Ready, strings.Join(r.NotReady, "\n")
	})
	return time.Since(start)
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// established tells whether the CRD is served: condition Established True.
func established(ctx context.Context, dc dynamic.Interface, name string) (bool, error) {
	crd, err := dc.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	conds, _, err := unstructured.NestedSlice(crd.Object, "status", "conditions")
	if err != nil {
		return false, err
	}
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" {
			return m["status"] == "True", nil
		}
	}
	return false, nil
}

// fluxDeployments are the controller Deployments in namespace, by name.
func fluxDeployments(ctx context.Context, t *testing.T, namespace string) map[string]appsv1.Deployment {
	t.Helper()
	list, err := sb.Client.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{LabelSelector: fluxinstall.ControllerSelector})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]appsv1.Deployment{}
	for _, d := range list.Items {
		out[d.Name] = d
	}
	return out
}

// pullSecrets are the image pull secrets of d's pod template.
func pullSecrets(d appsv1.Deployment) []string {
	var names []string
	for _, s := range d.Spec.Template.Spec.ImagePullSecrets {
		names = append(names, s.Name)
	}
	return names
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}
