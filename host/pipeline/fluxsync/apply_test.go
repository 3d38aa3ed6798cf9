package fluxsync

import (
	"context"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

func ensureFluxNamespace(t *testing.T) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if err := kube.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// fluxObjects reads the cluster's three objects.
func fluxObjects(t *testing.T, clusterID string) (*sourcev1.GitRepository, *kustomizev1.Kustomization, *kustomizev1.Kustomization) {
	t.Helper()
	ctx := context.Background()
	repo, infra, apps := &sourcev1.GitRepository{}, &kustomizev1.Kustomization{}, &kustomizev1.Kustomization{}
	for name, obj := range map[string]client.Object{GitRepositoryName(clusterID): repo, InfrastructureName(clusterID): infra, AppsName(clusterID): apps} {
		if err := kube.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, obj); err != nil {
			t.Fatalf("get %s: %v", name, err)
		}
	}
	return repo, infra, apps
}

func TestApplyTwiceChangesNothingAndLabelsEveryObject(t *testing.T) {
	ctx := context.Background()
	ensureFluxNamespace(t)
	s := Sync{ClusterID: "twice", URL: "http://127.0.0.1:1/fleet.git", SecretName: "git-auth", Path: "clusters/twice"}
	if err := Apply(ctx, kube, s); err != nil {
		t.Fatal(err)
	}
	repo, infra, apps := fluxObjects(t, "twice")
	// The API server still writes on an identical apply (the Flux CRDs
	// default status.observedGeneration), so resourceVersion moves; the
	// generation, which Flux reconciles on, must not.
	before := map[string]int64{}
	for _, o := range []client.Object{repo, infra, apps} {
		if o.GetLabels()[v1.ClusterIDLabel] != "twice" {
			t.Errorf("%s labels %v, want %s=twice", o.GetName(), o.GetLabels(), v1.ClusterIDLabel)
		}
		before[o.GetName()] = o.GetGeneration()
	}
	if err := Apply(ctx, kube, s); err != nil {
		t.Fatalf("second Apply: %v", err)
	}
	repo, infra, apps = fluxObjects(t, "twice")
	for _, o := range []client.Object{repo, infra, apps} {
		if o.GetGeneration() != before[o.GetName()] {
			t.Errorf("%s spec changed by an identical Apply (generation %d -> %d)", o.GetName(), before[o.GetName()], o.GetGeneration())
		}
	}
	if apps.Spec.Path != "./clusters/twice/apps" || len(apps.Spec.DependsOn) != 1 || !apps.Spec.Prune {
		t.Errorf("apps spec on the server: %+v", apps.Spec)
	}
}

func TestApplyUpdatesAChangedSync(t *testing.T) {
	ctx := context.Background()
	ensureFluxNamespace(t)
	s := Sync{ClusterID: "changed", URL: "http://127.0.0.1:1/fleet.git", SecretName: "git-auth", Path: "a"}
	if err := Apply(ctx, kube, s); err != nil {
		t.Fatal(err)
	}
	s.SecretName, s.Path, s.Branch = "", "b", "release"
	if err := Apply(ctx, kube, s); err != nil {
		t.Fatal(err)
	}
	repo, infra, _ := fluxObjects(t, "changed")
	if repo.Generation != 2 {
		t.Errorf("GitRepository generation %d after one change, want 2", repo.Generation)
	}
	if repo.Spec.SecretRef != nil {
		t.Errorf("secretRef %v kept after the repository became public", repo.Spec.SecretRef)
	}
	if repo.Spec.Reference.Branch != "release" || infra.Spec.Path != "./b/infrastructure" {
		t.Errorf("branch %q path %q, want release and ./b/infrastructure", repo.Spec.Reference.Branch, infra.Spec.Path)
	}
}

func TestCheckBeforeApplySaysToApply(t *testing.T) {
	_, err := Check(context.Background(), kube, "never-applied", strings.Repeat("a", 40), nil)
	if err == nil || !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "apply the Flux sync first") {
		t.Fatalf("Check of a cluster never applied: %v", err)
	}
}
