package localcloud

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// kwokAnnotation marks the nodes kwok manages: it makes them Ready and runs
// the pods scheduled to them.
const kwokAnnotation = "kwok.x-k8s.io/node"

// nodeName is the name of simulated node i (from 1).
func nodeName(i int) string { return fmt.Sprintf("local-node-%d", i) }

// addNodes creates n simulated nodes and waits until kwok made each Ready.
// Creating a node that exists is not an error, so a retried start goes on.
func (c cluster) addNodes(ctx context.Context, cs corev1client.NodesGetter, n int) error {
	if err := createNodes(ctx, cs, n); err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		if err := c.waitNodeReady(ctx, cs, nodeName(i)); err != nil {
			return err
		}
	}
	return nil
}

// createNodes creates simulated nodes 1 to n that do not exist yet.
func createNodes(ctx context.Context, cs corev1client.NodesGetter, n int) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("16Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	for i := 1; i <= n; i++ {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: nodeName(i), Annotations: map[string]string{kwokAnnotation: "fake"},
				Labels: map[string]string{"kubernetes.io/hostname": nodeName(i), "kubernetes.io/os": "linux", "type": "kwok",
					"topology.kubernetes.io/region": "local"}},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
				NodeInfo: corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "amd64"}},
		}
		if _, err := cs.Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", node.Name, err)
		}
	}
	return nil
}

// waitNodeReady waits until kwok made node name Ready and schedulable.
func (c cluster) waitNodeReady(ctx context.Context, cs corev1client.NodesGetter, name string) error {
	pid := c.pid("kwok")
	return WaitNodeReady(ctx, cs, name, func() error {
		if !c.alive(pid) {
			return fmt.Errorf("kwok exited: %s", c.logTail("kwok", 5))
		}
		return nil
	})
}

// WaitNodeReady waits until kwok has made node name Ready, then removes the
// not-ready taint the API server put on it at creation (the node lifecycle
// controller, which would remove it, does not run here). exited, asked on
// every poll, ends the wait with its error when kwok (or another process
// it depends on) is gone.
func WaitNodeReady(ctx context.Context, c corev1client.NodesGetter, name string, exited func() error) error {
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := exited(); err != nil {
			return false, err
		}
		node, err := c.Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil || !isReady(node) {
			return false, nil
		}
		var taints []corev1.Taint
		for _, t := range node.Spec.Taints {
			if t.Key != corev1.TaintNodeNotReady {
				taints = append(taints, t)
			}
		}
		if len(taints) == len(node.Spec.Taints) {
			return true, nil
		}
		node.Spec.Taints = taints
		_, err = c.Nodes().Update(ctx, node, metav1.UpdateOptions{})
		return err == nil, nil // a conflict with kwok's update: try again
	})
	if err != nil {
		return fmt.Errorf("node %s did not become Ready: %w", name, err)
	}
	return nil
}

func isReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
