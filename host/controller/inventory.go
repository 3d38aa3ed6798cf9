package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// defaultInventoryInterval is how often a Ready cluster's inventory is read
// again.
const defaultInventoryInterval = 3 * time.Minute

// inventory records the cluster's Kubernetes version and node counts in
// status when the phase changed in this reconcile (before is the
// HostCluster as it was read) or the last reading is InventoryInterval old,
// and asks for a wake-up in time for the next reading while Ready. A
// cluster that cannot be read keeps its last inventory: the steps report
// reachability. When this reconcile validated access, the version that
// check read is used rather than asked for again: in a fleet being
// connected every round trip to a target counts.
// It never ends the steps: a cluster that cannot be read is not a step
// that failed.
func (r *Reconciler) inventoryStep(ctx context.Context, p *pass) error {
	hc, before := p.hc, p.before
	from, phase := before.Status.Phase, v1.DerivePhase(hc)
	last := hc.Status.InventoryTime
	if phase == from && last != nil && time.Since(last.Time) < r.InventoryInterval {
		if phase == v1.PhaseReady {
			p.wake.In(r.InventoryInterval - time.Since(last.Time))
		}
		return nil
	}
	if phase == v1.PhaseReady {
		p.wake.In(r.InventoryInterval)
	}
	known := ""
	if !meta.IsStatusConditionTrue(before.Status.Conditions, v1.ConditionAccessValidated) &&
		meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionAccessValidated) {
		known = hc.Status.KubernetesVersion
	}
	version, inv, err := readInventory(ctx, p.kubeconfig, known)
	if err != nil {
		ctrl.LoggerFrom(ctx).Info("inventory not read; keeping the last one", "error", err.Error())
		return nil
	}
	hc.Status.KubernetesVersion, hc.Status.NodeCount, hc.Status.ReadyNodeCount = version, inv.all, inv.ready
	if inv.clusterUID != "" {
		hc.Status.ClusterUID = inv.clusterUID
	}
	hc.Status.WorkerNodeCount = &inv.workers
	now := metav1.Now()
	hc.Status.InventoryTime = &now
	return nil
}

// nodeCounts are a cluster's nodes counted: all of them, those whose Ready
// condition is True, and the workers (nodes without the control-plane
// role: a kubeadm cluster's control planes are nodes too, and a plugin's
// node count means workers).
type nodeCounts struct {
	all, ready, workers int32
	// clusterUID is the kube-system namespace's UID, read with the nodes:
	// which cluster this is (the server refuses to connect it twice).
	clusterUID string
}

// controlPlaneRole is the label kubeadm puts on control-plane nodes; the
// conformance kit counts workers by the same one.
const controlPlaneRole = hostenv.ControlPlaneLabel

// readInventory reads the API server's version (unless version is known),
// counts the nodes and reads the kube-system namespace's UID, in at most
// 10 seconds.
func readInventory(ctx context.Context, kubeconfig []byte, version string) (string, nodeCounts, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return "", nodeCounts{}, err
	}
	core, err := corev1client.NewForConfig(cfg) // the core group alone, not every group's client
	if err != nil {
		return "", nodeCounts{}, err
	}
	if version == "" {
		if version, err = serverVersion(ctx, cfg); err != nil {
			return "", nodeCounts{}, fmt.Errorf("read the Kubernetes version: %w", err)
		}
	}
	nodes, err := core.Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return "", nodeCounts{}, fmt.Errorf("list nodes: %w", err)
	}
	counts := countNodes(nodes.Items)
	// A credential that may list nodes but not read kube-system leaves the
	// UID unknown; the counts still stand.
	if ns, err := core.Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{ResourceVersion: "0"}); err == nil {
		counts.clusterUID = string(ns.UID)
	}
	return version, counts, nil
}

func countNodes(nodes []corev1.Node) nodeCounts {
	n := nodeCounts{all: int32(len(nodes))}
	for _, node := range nodes {
		if _, cp := node.Labels[controlPlaneRole]; !cp {
			n.workers++
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				n.ready++
			}
		}
	}
	return n
}
