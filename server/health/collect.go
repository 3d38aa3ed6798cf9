package health

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// listPageSize bounds each list request, so a large cluster is read in
// chunks rather than in one response.
const listPageSize = 500

// Collect gathers Input from a live cluster: its nodes, its pods in all
// namespaces, its control-plane health and its resource use.
//
// Control plane: kube-apiserver and etcd are judged from the API server's
// verbose /readyz checks (the "etcd" checks count for etcd, all others for
// the API server; no answer at all means the API server is unhealthy).
// kube-scheduler and kube-controller-manager are judged from their static
// pods in kube-system (label component=<name>, as kubeadm makes them): all
// Ready is healthy, any not Ready is unhealthy. Where there are no such pods,
// as on managed control planes (EKS, GKE, AKS), the component is not
// reported and so costs nothing: what cannot be seen is not penalised.
// Likewise a client without a REST client (a fake clientset) reports
// neither kube-apiserver nor etcd.
//
// Usage: when the cluster serves metrics.k8s.io/v1beta1, the usage of all
// NodeMetrics against the nodes' total allocatable (Source
// UsageFromMetrics); otherwise the effective requests of the pods bound to
// a node and not terminated, init containers and sidecars counted as the
// scheduler counts them (Source UsageFromRequests). Zero allocatable is 0
// use.
//
// Errors are failures to list nodes or pods, or a cancelled ctx; a sick
// control plane or missing metrics are findings, not errors.
func Collect(ctx context.Context, cs kubernetes.Interface) (Input, error) {
	nodes, err := listAll(ctx, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Node, string, error) {
		l, err := cs.CoreV1().Nodes().List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return Input{}, fmt.Errorf("list nodes: %w", err)
	}
	pods, err := listAll(ctx, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Pod, string, error) {
		l, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return Input{}, fmt.Errorf("list pods: %w", err)
	}
	in := Input{Nodes: nodes, Pods: pods}
	if in.ControlPlane, err = controlPlane(ctx, cs, pods); err != nil {
		return Input{}, err
	}
	if in.Usage, err = usage(ctx, cs, nodes, pods); err != nil {
		return Input{}, err
	}
	return in, nil
}

// Assess collects the cluster's Input and scores it.
func Assess(ctx context.Context, cs kubernetes.Interface) (Score, error) {
	in, err := Collect(ctx, cs)
	if err != nil {
		return Score{}, fmt.Errorf("assess cluster health: %w", err)
	}
	return Judge(in), nil
}

// BadgeUnknown is the badge of a cluster whose health cannot be judged.
const BadgeUnknown = "unknown"

// RuleNoNodes marks a cluster scored unknown because it reports no nodes.
const RuleNoNodes = "no-nodes"

// Judge is Compute, except that an endpoint reporting no nodes (not a
// Kubernetes cluster at all, or one without workers) is unknown, not a
// healthy 100: nothing was there to find problems in.
func Judge(in Input) Score {
	if len(in.Nodes) > 0 {
		return Compute(in)
	}
	return Score{Score: 0, Badge: BadgeUnknown, Findings: []Finding{{Rule: RuleNoNodes, Subject: "nodes", Penalty: 100,
		Detail: "the cluster reports no nodes, so its health cannot be judged: check that the endpoint is a Kubernetes API server and that the kubeconfig may list nodes"}},
		UsageSource: in.Usage.Source}
}

// listAll pages through a list call; page returns one page's items and the
// continue token.
func listAll[T any](ctx context.Context, page func(context.Context, metav1.ListOptions) ([]T, string, error)) ([]T, error) {
	var all []T
	opts := metav1.ListOptions{Limit: listPageSize}
	for {
		items, next, err := page(ctx, opts)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next == "" {
			return all, nil
		}
		opts.Continue = next
	}
}
