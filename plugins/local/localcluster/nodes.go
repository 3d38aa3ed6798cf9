package localcluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// kwokAnnotation marks the nodes kwok manages: it makes them Ready and runs
// the pods scheduled to them.
const kwokAnnotation = "kwok.x-k8s.io/node"

// nodeName is the name of simulated node i (from 1).
func nodeName(i int) string { return fmt.Sprintf("local-node-%d", i) }

// addNodes creates n simulated nodes and waits until kwok made each Ready.
// Creating a node that exists is not an error, so a retried start goes on.
func (c cluster) addNodes(ctx context.Context, cs kubernetes.Interface, n int) error {
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
func createNodes(ctx context.Context, cs kubernetes.Interface, n int) error {
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
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", node.Name, err)
		}
	}
	return nil
}

// waitNodeReady waits until kwok made node name Ready and schedulable.
func (c cluster) waitNodeReady(ctx context.Context, cs kubernetes.Interface, name string) error {
	pid := c.pid("kwok")
	return sandbox.WaitNodeReady(ctx, cs, name, func() error {
		if !c.alive(pid) {
			return fmt.Errorf("kwok exited: %s", c.logTail("kwok", 5))
		}
		return nil
	})
}
