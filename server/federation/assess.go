package federation

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// DefaultAssessor lists the cluster's nodes and fills NodesReady, NodesTotal
// and Nodes; Score, Badge and usage stay zero.
func DefaultAssessor(ctx context.Context, cfg *rest.Config) (Report, error) {
	if cfg == nil {
		return Report{}, errors.New("no connection settings for this cluster")
	}
	// Only the core/v1 client: a full Clientset builds ~50 group clients,
	// which adds up when fanning out to many clusters.
	client, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return Report{}, fmt.Errorf("create client: %w", err)
	}
	// ResourceVersion "0" lets the API server answer from its watch cache
	// instead of etcd; a second-old view is fine for an overview.
	list, err := client.Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return Report{}, fmt.Errorf("list nodes: %w", err)
	}
	rep := Report{NodesTotal: len(list.Items), Nodes: list.Items}
	for i := range list.Items {
		if NodeReady(&list.Items[i]) {
			rep.NodesReady++
		}
	}
	return rep, nil
}

// NodeReady reports whether the node's Ready condition is True.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
