// Package inspect looks at a cluster from the inside, through a client of
// its own API server: its identity (the kube-system namespace UID), version,
// nodes, and the cloud provider and region its nodes report.
package inspect

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ochestra-tech/kubeopera/server/federation"
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
	for i := range nodes.Items {
		if federation.NodeReady(&nodes.Items[i]) {
			inv.ReadyNodeCount++
		}
	}
	inv.Provider, inv.Region = Placement(nodes.Items)
	return inv, nil
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

// NodeInfo is one node as the dashboard shows it.
type NodeInfo struct {
	Name       string          `json:"name"`
	Ready      bool            `json:"ready"`
	Roles      []string        `json:"roles"`
	Version    string          `json:"version"`
	Conditions []NodeCondition `json:"conditions"`
	CPU        Resource        `json:"cpu"`
	Memory     Resource        `json:"memory"`
	// InstanceType is the machine type the cloud controller labelled the
	// node with (node.kubernetes.io/instance-type), e.g. t3.medium; empty
	// without one. The cluster page prices what runs from it.
	InstanceType string `json:"instanceType,omitempty"`
}

// NodeCondition is a node condition without its timestamps.
type NodeCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Resource is a node's capacity and what pods may use of it, as Kubernetes
// quantities (e.g. "4", "16Gi").
type Resource struct {
	Capacity    string `json:"capacity"`
	Allocatable string `json:"allocatable"`
}

// Nodes lists the cluster's nodes for the per-node breakdown.
func (i Inspector) Nodes(ctx context.Context) ([]NodeInfo, error) {
	nodes, err := i.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	out := make([]NodeInfo, 0, len(nodes.Items))
	for _, n := range nodes.Items {
		out = append(out, Describe(n))
	}
	return out, nil
}

// rolePrefix marks role labels: node-role.kubernetes.io/control-plane="".
const rolePrefix = "node-role.kubernetes.io/"

// Describe turns a Node into its breakdown row.
func Describe(n corev1.Node) NodeInfo {
	info := NodeInfo{Name: n.Name, Ready: federation.NodeReady(&n), Roles: []string{}, Version: n.Status.NodeInfo.KubeletVersion,
		Conditions:   []NodeCondition{},
		CPU:          Resource{Capacity: n.Status.Capacity.Cpu().String(), Allocatable: n.Status.Allocatable.Cpu().String()},
		Memory:       Resource{Capacity: n.Status.Capacity.Memory().String(), Allocatable: n.Status.Allocatable.Memory().String()},
		InstanceType: n.Labels[corev1.LabelInstanceTypeStable]}
	for k := range n.Labels {
		if role, ok := strings.CutPrefix(k, rolePrefix); ok && role != "" {
			info.Roles = append(info.Roles, role)
		}
	}
	sort.Strings(info.Roles)
	for _, c := range n.Status.Conditions {
		info.Conditions = append(info.Conditions, NodeCondition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return info
}
