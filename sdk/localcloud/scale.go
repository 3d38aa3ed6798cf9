package localcloud

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// Nodes is what a cluster's simulated nodes are.
type Nodes struct {
	// Desired is the node count spec.json asks for.
	Desired int
	// Total and Ready count the simulated nodes the API server has.
	Total, Ready int
}

// Scale moves Ready cluster id to n simulated nodes: it records n in
// spec.json, creates the missing nodes (kwok makes them Ready) and deletes
// the highest-numbered ones beyond n (their pods are collected by the
// controller manager). It returns once the API server has the nodes it
// should; CountNodes follows kwok making them Ready. Scaling to the count a
// cluster has does nothing.
func Scale(ctx context.Context, root, id string, n int) error {
	if n < 1 {
		return fmt.Errorf("local cluster %s: cannot scale to %d nodes, at least 1 is needed", id, n)
	}
	c, cs, err := readyClient(root, id)
	if err != nil {
		return err
	}
	spec, err := c.readSpec()
	if err != nil {
		return err
	}
	spec.Nodes = n
	if err := writeJSON(c.path("spec.json"), spec); err != nil {
		return fmt.Errorf("record %d nodes for local cluster %s: %w", n, id, err)
	}
	if err := createNodes(ctx, cs, n); err != nil {
		return err
	}
	nodes, err := cs.Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
	if err != nil {
		return fmt.Errorf("list the nodes of local cluster %s: %w", id, err)
	}
	for _, node := range nodes.Items {
		var i int
		if _, err := fmt.Sscanf(node.Name, "local-node-%d", &i); err != nil || i <= n {
			continue
		}
		err := cs.Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete node %s: %w", node.Name, err)
		}
	}
	return nil
}

// CountNodes reports the desired and actual simulated nodes of Ready
// cluster id.
func CountNodes(ctx context.Context, root, id string) (Nodes, error) {
	c, cs, err := readyClient(root, id)
	if err != nil {
		return Nodes{}, err
	}
	spec, err := c.readSpec()
	if err != nil {
		return Nodes{}, err
	}
	list, err := cs.Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
	if err != nil {
		return Nodes{}, fmt.Errorf("list the nodes of local cluster %s: %w", id, err)
	}
	out := Nodes{Desired: spec.Nodes}
	for _, node := range list.Items {
		if !strings.HasPrefix(node.Name, "local-node-") || node.DeletionTimestamp != nil {
			continue
		}
		out.Total++
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				out.Ready++
			}
		}
	}
	return out, nil
}

// readyClient opens Ready cluster id and a client of its API server.
func readyClient(root, id string) (cluster, corev1client.CoreV1Interface, error) {
	kc, err := Kubeconfig(root, id)
	if err != nil {
		return cluster{}, nil, err
	}
	c, _ := open(root, id)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		return cluster{}, nil, fmt.Errorf("kubeconfig of local cluster %s: %w", id, err)
	}
	cs, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return cluster{}, nil, err
	}
	return c, cs, nil
}
