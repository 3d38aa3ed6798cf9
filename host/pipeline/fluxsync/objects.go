package fluxsync

import (
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// objects returns what Apply applies for a normalized s, in order: the
// GitRepository, then the infrastructure and apps Kustomizations.
func objects(s Sync) []client.Object {
	return []client.Object{gitRepository(s), infrastructure(s), apps(s), tls(s)}
}

func gitRepository(s Sync) *sourcev1.GitRepository {
	r := &sourcev1.GitRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.GitRepositoryKind},
		ObjectMeta: objectMeta(s, GitRepositoryName(s.ClusterID)),
		Spec: sourcev1.GitRepositorySpec{
			URL:       s.URL,
			Reference: &sourcev1.GitRepositoryRef{Branch: s.Branch},
			Interval:  metav1.Duration{Duration: s.Interval},
		},
	}
	if s.SecretName != "" {
		r.Spec.SecretRef = &meta.LocalObjectReference{Name: s.SecretName}
	}
	return r
}

func infrastructure(s Sync) *kustomizev1.Kustomization {
	return kustomization(s, InfrastructureName(s.ClusterID), "infrastructure")
}

// apps waits for infrastructure: Flux applies it only once infrastructure
// is Ready at the same source revision.
func apps(s Sync) *kustomizev1.Kustomization {
	k := kustomization(s, AppsName(s.ClusterID), "apps")
	k.Spec.DependsOn = []kustomizev1.DependencyReference{{Name: InfrastructureName(s.ClusterID)}}
	return k
}

// tls is the cert-manager ClusterIssuer alone: it applies once the
// cert-manager chart of infrastructure has installed its CRDs (Flux
// retries until then), and apps does not wait for it.
func tls(s Sync) *kustomizev1.Kustomization {
	k := kustomization(s, TLSName(s.ClusterID), "tls")
	k.Spec.DependsOn = []kustomizev1.DependencyReference{{Name: InfrastructureName(s.ClusterID)}}
	return k
}

// kustomization is one layer. Prune removes what a later commit drops from
// the tree, but deleting the Kustomization itself (a disconnect) orphans
// everything it applied: the workloads on the target keep running.
func kustomization(s Sync, name, layer string) *kustomizev1.Kustomization {
	return &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: objectMeta(s, name),
		Spec: kustomizev1.KustomizationSpec{
			Interval:       metav1.Duration{Duration: s.Interval},
			Path:           s.kustomizationPath(layer),
			Prune:          true,
			DeletionPolicy: kustomizev1.DeletionPolicyOrphan,
			SourceRef: kustomizev1.CrossNamespaceSourceReference{
				Kind: sourcev1.GitRepositoryKind,
				Name: GitRepositoryName(s.ClusterID),
			},
		},
	}
}

func objectMeta(s Sync, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: s.labels()}
}
