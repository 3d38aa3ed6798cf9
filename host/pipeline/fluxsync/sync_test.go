package fluxsync

import (
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

func TestSyncDefaultsAndValidation(t *testing.T) {
	valid := Sync{ClusterID: "c1", URL: "https://git.example/fleet.git", Path: "clusters/c1"}
	tests := []struct {
		name      string
		change    func(*Sync)
		wantErr   string
		wantPath  string
		wantInfra string
	}{
		{name: "branch and interval default to main and one minute", change: func(*Sync) {}, wantPath: "clusters/c1", wantInfra: "./clusters/c1/infrastructure"},
		{name: "leading ./ and slashes are dropped from the path", change: func(s *Sync) { s.Path = "./clusters/c1/" }, wantPath: "clusters/c1", wantInfra: "./clusters/c1/infrastructure"},
		{name: "an empty path is the repository root", change: func(s *Sync) { s.Path = "" }, wantPath: "", wantInfra: "./infrastructure"},
		{name: "a path leaving the repository is refused", change: func(s *Sync) { s.Path = "../other" }, wantErr: "leaves the repository"},
		{name: "an empty cluster ID is refused", change: func(s *Sync) { s.ClusterID = "" }, wantErr: "cluster ID is empty"},
		{name: "a cluster ID that is no label value is refused", change: func(s *Sync) { s.ClusterID = strings.Repeat("a", 64) }, wantErr: "cannot be a label value"},
		{name: "a cluster ID that cannot be in a name is refused", change: func(s *Sync) { s.ClusterID = "Upper_Case" }, wantErr: "cannot be part of an object name"},
		{name: "an empty URL is refused", change: func(s *Sync) { s.URL = "" }, wantErr: "repository URL is empty"},
		{name: "a negative interval is refused", change: func(s *Sync) { s.Interval = -time.Second }, wantErr: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := valid
			tt.change(&s)
			got, err := s.normalized()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Branch != "main" || got.Interval != time.Minute {
				t.Errorf("branch %q interval %s, want main and 1m", got.Branch, got.Interval)
			}
			if got.Path != tt.wantPath || got.kustomizationPath("infrastructure") != tt.wantInfra {
				t.Errorf("path %q (infrastructure %q), want %q (%q)", got.Path, got.kustomizationPath("infrastructure"), tt.wantPath, tt.wantInfra)
			}
		})
	}
}

func TestObjectsPointFluxAtBothLayers(t *testing.T) {
	s, err := Sync{ClusterID: "c1", URL: "https://git.example/fleet.git", Branch: "prod", SecretName: "git-auth", Path: "clusters/c1", Interval: 5 * time.Minute}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	objs := objects(s)
	repo, infra, apps := objs[0].(*sourcev1.GitRepository), objs[1].(*kustomizev1.Kustomization), objs[2].(*kustomizev1.Kustomization)
	tls := objs[3].(*kustomizev1.Kustomization)
	for _, o := range objs {
		if o.GetNamespace() != "flux-system" || o.GetLabels()[v1.ClusterIDLabel] != "c1" {
			t.Errorf("%s: namespace %q labels %v, want flux-system and %s=c1", o.GetName(), o.GetNamespace(), o.GetLabels(), v1.ClusterIDLabel)
		}
	}
	if repo.Name != "kubeopera-c1" || repo.Spec.URL != s.URL || repo.Spec.Reference.Branch != "prod" ||
		repo.Spec.SecretRef == nil || repo.Spec.SecretRef.Name != "git-auth" || repo.Spec.Interval.Duration != 5*time.Minute {
		t.Errorf("GitRepository = %+v", repo)
	}
	for _, k := range []struct {
		obj        *kustomizev1.Kustomization
		name, path string
		deps       int
	}{{infra, "kubeopera-c1-infrastructure", "./clusters/c1/infrastructure", 0}, {apps, "kubeopera-c1-apps", "./clusters/c1/apps", 1},
		{tls, "kubeopera-c1-tls", "./clusters/c1/tls", 1}} {
		if k.obj.Name != k.name || k.obj.Spec.Path != k.path || !k.obj.Spec.Prune || k.obj.Spec.SourceRef.Name != "kubeopera-c1" ||
			k.obj.Spec.SourceRef.Kind != "GitRepository" || len(k.obj.Spec.DependsOn) != k.deps ||
			k.obj.Spec.DeletionPolicy != kustomizev1.DeletionPolicyOrphan {
			t.Errorf("Kustomization %s = %+v", k.name, k.obj.Spec)
		}
	}
	for _, k := range []*kustomizev1.Kustomization{apps, tls} {
		if k.Spec.DependsOn[0].Name != "kubeopera-c1-infrastructure" {
			t.Errorf("%s depends on %v, want the infrastructure Kustomization", k.Name, k.Spec.DependsOn)
		}
	}
	s.SecretName = ""
	if gitRepository(s).Spec.SecretRef != nil {
		t.Error("a public repository still references a Secret")
	}
}

func TestApplyConfigurationDeclaresNoStatus(t *testing.T) {
	s, _ := Sync{ClusterID: "c1", URL: "https://git.example/fleet.git"}.normalized()
	u, err := applyConfiguration(apps(s))
	if err != nil {
		t.Fatal(err)
	}
	if _, has := u.Object["status"]; has {
		t.Error("apply configuration carries a status")
	}
	if _, has := u.Object["metadata"].(map[string]any)["creationTimestamp"]; has {
		t.Error("apply configuration carries creationTimestamp")
	}
	if u.GetKind() != "Kustomization" || u.GetAPIVersion() != "kustomize.toolkit.fluxcd.io/v1" {
		t.Errorf("kind %s apiVersion %s", u.GetKind(), u.GetAPIVersion())
	}
}

// Deleting a Kustomization (a disconnect) must orphan what it applied.
func TestKustomizationsOrphanWhatTheyApplied(t *testing.T) {
	s, err := Sync{ClusterID: "c1", URL: "https://git.example.com/r.git"}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*kustomizev1.Kustomization{infrastructure(s), apps(s)} {
		if k.Spec.DeletionPolicy != kustomizev1.DeletionPolicyOrphan || !k.Spec.Prune {
			t.Errorf("%s: deletionPolicy %q, prune %v; want Orphan and prune", k.Name, k.Spec.DeletionPolicy, k.Spec.Prune)
		}
	}
}
