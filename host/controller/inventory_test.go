package controller

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// A kubeadm cluster's control planes are nodes too, while a plugin's node
// count (spec.nodeCount) means workers: the inventory, read from a real
// API server, counts them apart, so 1 control plane and 2 workers read as
// 2 workers, not 3.
func TestInventoryCountsWorkersApartFromControlPlanes(t *testing.T) {
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	cs := kubernetes.NewForConfigOrDie(sb.Config)
	for _, n := range []struct {
		name  string
		cp    bool
		ready bool
	}{{"cp-1", true, true}, {"worker-1", false, true}, {"worker-2", false, false}} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: map[string]string{}}}
		if n.cp {
			node.Labels[controlPlaneRole] = ""
		}
		created, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		status := corev1.ConditionFalse
		if n.ready {
			status = corev1.ConditionTrue
		}
		created.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, got, err := readInventory(ctx, sb.Kubeconfig, "v1.37.2")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := cs.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (nodeCounts{all: 3, ready: 2, workers: 2, clusterUID: string(ks.UID)}); got != want || got.clusterUID == "" {
		t.Errorf("inventory = %+v, want %+v", got, want)
	}
}
