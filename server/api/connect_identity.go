package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// identifyTimeout bounds connect's look at the cluster's identity: a
// cluster that does not answer in time is connected without it, and the
// controller reports its reachability as before.
const identifyTimeout = 5 * time.Second

// clusterUID reads the UID of the kube-system namespace of the cluster the
// kubeconfig reaches, which names the Kubernetes cluster whatever
// kubeconfig reaches it; "" when it cannot be read in identifyTimeout.
func clusterUID(ctx context.Context, kubeconfig []byte) string {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return ""
	}
	cfg.Timeout = identifyTimeout
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, identifyTimeout)
	defer cancel()
	ns, err := core.Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return string(ns.UID)
}

// refuseManaged answers 409 when KubeOpera already manages the cluster
// whose kube-system UID is uid: a row that recorded it (connected or
// self-registered), or a HostCluster whose controller read it (a
// provisioned cluster, or one connected while it did not answer). A
// second row for the same cluster would show it twice and count its nodes
// twice.
func (s *server) refuseManaged(ctx context.Context, uid string) error {
	row, err := s.store.GetClusterByUID(ctx, uid)
	switch {
	case err == nil:
		return alreadyManaged(row, uid)
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	observed, err := s.registry.List(ctx)
	if err != nil {
		return nil // the management cluster's view is unavailable: the rows were checked
	}
	for id, o := range observed {
		if o.ClusterUID != uid {
			continue
		}
		row, err := s.store.GetCluster(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // its row is gone: a disconnect is finishing
		}
		if err != nil {
			return err
		}
		return alreadyManaged(row, uid)
	}
	return nil
}

func alreadyManaged(row *store.Cluster, uid string) error {
	return problem(http.StatusConflict, "this cluster (kube-system namespace UID %s) is already managed by KubeOpera as %q (ID %s): "+
		"open it there; to connect it under another name, disconnect %q first", uid, row.Name, row.ID, row.Name)
}
