package sandbox

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// Node is a simulated node.
type Node struct {
	Name   string
	Labels map[string]string
	// ProviderID, e.g. aws:///eu-north-1a/i-0abc123.
	ProviderID string
	// Capacity defaults to 4 CPUs, 16Gi memory and 110 pods; allocatable
	// equals capacity.
	Capacity corev1.ResourceList
	// Conditions, when set, are written as the node's status and kept: kwok
	// does not manage such a node, so it is labelled type=static and tainted
	// NoSchedule (no pod would ever start there). When nil, kwok makes the
	// node Ready and runs the pods scheduled to it; it is labelled type=kwok.
	Conditions []corev1.NodeCondition
}

// staticTaint keeps pods off nodes kwok does not manage.
const staticTaint = "sandbox.kubeopera.io/static"

func (n Node) managed() bool { return n.Conditions == nil }

// AddNode creates a simulated node and, when kwok manages it, waits until it
// is Ready and schedulable. It needs a sandbox started with Workloads (or
// Nodes).
func (s *Sandbox) AddNode(ctx context.Context, n Node) error {
	capacity := n.Capacity
	if capacity == nil {
		capacity = corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("4"),
			corev1.ResourceMemory: resource.MustParse("16Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
		}
	}
	labels := map[string]string{"kubernetes.io/hostname": n.Name, "kubernetes.io/os": "linux", "type": "kwok"}
	if !n.managed() {
		labels["type"] = "static"
	}
	for k, v := range n.Labels {
		labels[k] = v
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: n.ProviderID},
		Status: corev1.NodeStatus{
			Capacity: capacity, Allocatable: capacity,
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: KubernetesVersion, OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
	if n.managed() {
		node.Annotations = map[string]string{kwokAnnotation: "fake"}
	} else {
		node.Spec.Taints = []corev1.Taint{{Key: staticTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	}
	created, err := s.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create node %s: %w", n.Name, err)
	}
	if n.managed() {
		return s.waitReady(ctx, n.Name)
	}
	// A merge patch of the status subresource: nothing else races it, unlike
	// an update of the object the API server has just touched.
	now := metav1.Now()
	var conds []corev1.NodeCondition
	for _, c := range n.Conditions {
		c.LastHeartbeatTime, c.LastTransitionTime = now, now
		conds = append(conds, c)
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
	if err != nil {
		return err
	}
	if _, err := s.Client.CoreV1().Nodes().Patch(ctx, created.Name, types.MergePatchType, patch,
		metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("set conditions of node %s: %w", n.Name, err)
	}
	return nil
}

// waitReady waits until kwok has made node name Ready; a dead sandbox
// process is reported at once instead of waiting out the timeout.
func (s *Sandbox) waitReady(ctx context.Context, name string) error {
	return localcloud.WaitNodeReady(ctx, s.Client.CoreV1(), name, func() error {
		for _, p := range s.procs {
			if err := p.Exited(); err != nil {
				return err
			}
		}
		return nil
	})
}
