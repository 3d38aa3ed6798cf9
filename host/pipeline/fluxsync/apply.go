package fluxsync

import (
	"context"
	"fmt"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"time"

	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Apply creates or updates, by server-side apply as FieldOwner, the
// cluster's GitRepository and its infrastructure and apps Kustomizations in
// flux-system. Applying the same Sync again changes nothing; applying a
// changed one updates the objects in place, and a field Sync no longer sets
// (e.g. the Secret of a repository made public) is removed.
func Apply(ctx context.Context, c client.Client, s Sync) error {
	s, err := s.normalized()
	if err != nil {
		return err
	}
	for _, obj := range objects(s) {
		u, err := applyConfiguration(obj)
		if err != nil {
			return err
		}
		err = c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldOwner), client.ForceOwnership)
		if meta.IsNoMatchError(err) {
			return fmt.Errorf("apply %s %s/%s: the target has no Flux CRDs; install Flux there first: %w",
				u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		if err != nil {
			return fmt.Errorf("apply %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
	return nil
}

// applyConfiguration turns a typed object into the fields we declare: its
// metadata and spec, without status or server-set metadata.
func applyConfiguration(obj client.Object) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s to unstructured: %w", obj.GetName(), err)
	}
	delete(m, "status")
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

// RequestFetch asks source-controller to fetch the cluster's repository now
// rather than at its next interval, as `flux reconcile source git` does: it
// sets the reconcile.fluxcd.io/requestedAt annotation on the GitRepository.
// Call it after pushing a commit; kustomize-controller follows a new
// artifact by itself.
func RequestFetch(ctx context.Context, c client.Client, clusterID string) error {
	return requestReconcile(ctx, c, sourcev1.GroupVersion.String(), sourcev1.GitRepositoryKind, GitRepositoryName(clusterID))
}

// RequestApply asks kustomize-controller to reconcile the apps
// Kustomization now. Nothing watches a dependsOn, so without it apps waits
// kustomize-controller's --requeue-dependency (30s by default) after
// infrastructure became Ready; the pipeline calls it while it waits.
func RequestApply(ctx context.Context, c client.Client, clusterID string) error {
	return requestReconcile(ctx, c, kustomizev1.GroupVersion.String(), kustomizev1.KustomizationKind, AppsName(clusterID))
}

func requestReconcile(ctx context.Context, c client.Client, apiVersion, kind, name string) error {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(apiVersion)
	obj.SetKind(kind)
	obj.SetNamespace(Namespace)
	obj.SetName(name)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`,
		fluxmeta.ReconcileRequestAnnotation, time.Now().UTC().Format(time.RFC3339Nano))
	if err := c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return fmt.Errorf("request a reconcile of %s %s/%s: %w", kind, Namespace, name, err)
	}
	return nil
}
