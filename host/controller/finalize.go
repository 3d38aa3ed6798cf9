package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// FluxNamespace is where the pipeline creates the Flux objects of a cluster,
// each labelled with ClusterIDLabel.
const FluxNamespace = "flux-system"

// fluxResources are the only kinds the finalizer deletes on a target.
var fluxResources = []schema.GroupVersionResource{
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"},
	{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"},
}

// finalize disconnects: it deletes the Flux GitRepository and Kustomizations
// KubeOpera created on the target (and nothing else there), within
// CleanupTimeout so an unreachable target does not block, then the stored
// kubeconfig Secrets on the host, then lets the HostCluster go.
func (r *Reconciler) finalize(ctx context.Context, hc *v1.HostCluster) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(hc, Finalizer) {
		return ctrl.Result{}, nil
	}
	log := ctrl.LoggerFrom(ctx)
	names := []string{v1.KubeconfigSecretName(hc.Name)}
	if ref := hc.Spec.ConnectKubeconfigSecretRef; ref != nil && ref.Name != names[0] {
		names = append(names, ref.Name)
	}
	if data := r.anyKubeconfig(ctx, hc, names); data != nil {
		if err := r.cleanTarget(ctx, hc, data); err != nil {
			log.Info("target cleanup incomplete; cleaning up the host side", "error", err.Error())
			r.Recorder.Eventf(hc, "Warning", "TargetCleanupIncomplete", "could not remove Flux objects from the target: %v", err)
		}
	}
	for _, n := range names {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: hc.Namespace}}
		if err := r.Delete(ctx, s); err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("delete Secret %s: %w", n, err)
		}
	}
	controllerutil.RemoveFinalizer(hc, Finalizer)
	return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, hc))
}

func (r *Reconciler) anyKubeconfig(ctx context.Context, hc *v1.HostCluster, names []string) []byte {
	for _, n := range names {
		if data, err := r.secretData(ctx, hc.Namespace, n, v1.KubeconfigSecretKey); err == nil {
			return data
		}
	}
	return nil
}

func (r *Reconciler) cleanTarget(ctx context.Context, hc *v1.HostCluster, kubeconfig []byte) error {
	ctx, cancel := context.WithTimeout(ctx, r.CleanupTimeout)
	defer cancel()
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return err
	}
	cfg.Timeout = r.CleanupTimeout
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	sel := metav1.ListOptions{LabelSelector: v1.ClusterIDLabel + "=" + hc.Name}
	for _, gvr := range fluxResources {
		err := dyn.Resource(gvr).Namespace(FluxNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete %s: %w", gvr.Resource, err)
		}
	}
	return nil
}

// cleanupDeadline is the default bound on target cleanup.
const cleanupDeadline = 20 * time.Second
