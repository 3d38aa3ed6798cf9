package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// lbCleanupFinalizer is the finalizer a cloud controller puts on a
// LoadBalancer Service until it has deleted the cloud load balancer.
const lbCleanupFinalizer = "service.kubernetes.io/load-balancer-cleanup"

// A teardown deletes the target's LoadBalancer Services and waits for the
// cloud controller to release them (here: the test removes the finalizer
// a cloud controller would) before it calls Destroy; other Services stay.
func TestTeardownReleasesLoadBalancersBeforeDestroy(t *testing.T) {
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	cs := kubernetes.NewForConfigOrDie(target.Config)
	port := []corev1.ServicePort{{Port: 80}}
	lb := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Finalizers: []string{lbCleanupFinalizer}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: port}}
	internal := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: port}}
	for _, s := range []*corev1.Service{lb, internal} {
		if _, err := cs.CoreV1().Services("default").Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	e := newEnv(t, 2, target.Kubeconfig)
	e.credential("cred-1")
	if err := e.c.Create(ctx, provisioned("lb1")); err != nil {
		t.Fatal(err)
	}
	e.trace("lb1", 30*time.Second, func(hc *v1.HostCluster) bool { return hc != nil && hc.Status.Phase == v1.PhaseBootstrappingFlux })
	e.requestTeardown("lb1", time.Now().UTC().Format(time.RFC3339Nano))
	e.trace("lb1", 30*time.Second, func(hc *v1.HostCluster) bool {
		return hc != nil && hc.Status.Phase == v1.PhaseTearingDown &&
			strings.Contains(hc.Status.Message, "load balancers of 1 LoadBalancer Service(s) (default/web)")
	})
	destroys := filepath.Join(os.Getenv("TESTCLOUD_STATE"), "destroy-lb1")
	time.Sleep(time.Second) // several polls
	if _, err := os.Stat(destroys); !os.IsNotExist(err) {
		t.Fatalf("Destroy was called while a load balancer was still being deleted (%v)", err)
	}
	got, err := cs.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("LoadBalancer Service web: deletion not requested (%v)", err)
	}

	// The cloud controller has deleted the load balancer.
	if _, err := cs.CoreV1().Services("default").Patch(ctx, "web", types.MergePatchType,
		[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.trace("lb1", 30*time.Second, func(hc *v1.HostCluster) bool { return hc == nil })
	if calls, _ := os.ReadFile(destroys); strings.Count(string(calls), "\n") != 1 {
		t.Errorf("Destroy calls after the load balancer went: %q, want 1", calls)
	}
	if _, err := cs.CoreV1().Services("default").Get(ctx, "db", metav1.GetOptions{}); err != nil {
		t.Errorf("the ClusterIP Service was touched: %v", err)
	}
}
