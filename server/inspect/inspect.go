// Package inspect looks at a cluster from the inside, through a client of
// its own API server: its identity (the kube-system namespace UID), version,
// nodes, and the cloud provider and region its nodes report.
package inspect

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Inventory is what inspecting a cluster from the inside finds.
type Inventory struct {
	ClusterUID        string
	KubernetesVersion string
	Provider, Region  string
	NodeCount         int
	ReadyNodeCount    int
}

// Inspector inspects the cluster its client reaches.
type Inspector struct {
	Client kubernetes.Interface
}

// Inspect reads the cluster's identity, version, nodes and placement.
func (i Inspector) Inspect(ctx context.Context) (Inventory, error) {
	ns, err := i.Client.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return Inventory{}, fmt.Errorf("read kube-system namespace: %w", err)
	}
	v, err := i.Client.Discovery().ServerVersion()
	if err != nil {
		return Inventory{}, fmt.Errorf("read server version: %w", err)
	}
	nodes, err := i.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return Inventory{}, fmt.Errorf("list nodes: %w", err)
	}
	inv := Inventory{ClusterUID: string(ns.UID), KubernetesVersion: v.GitVersion, NodeCount: len(nodes.Items)}
	for _, n := range nodes.Items {
		if ready(n) {
			inv.ReadyNodeCount++
		}
	}
	inv.Provider, inv.Region = Placement(nodes.Items)
	return inv, nil
}

func ready(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Placement derives provider and region from nodes: the region label
// topology.kubernetes.io/region first, else an AWS providerID
// aws:///<az>/<instance-id> (the region is the zone without its trailing
// letter). Without a cloud controller manager there is no providerID and
// the provider is "unknown": never a guess.
func Placement(nodes []corev1.Node) (provider, region string) {
	provider = "unknown"
	for _, n := range nodes {
		scheme, rest, ok := strings.Cut(n.Spec.ProviderID, "://")
		if ok && scheme != "" {
			provider = scheme
		}
		if r := n.Labels[corev1.LabelTopologyRegion]; r != "" {
			region = r
		} else if scheme == "aws" && region == "" {
			parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
			if len(parts) == 2 && len(parts[0]) > 1 {
				region = parts[0][:len(parts[0])-1]
			}
		}
		if provider != "unknown" && region != "" {
			return provider, region
		}
	}
	return provider, region
}
