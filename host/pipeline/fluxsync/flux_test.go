package fluxsync

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ochestra-tech/kubeopera/internal/fluxrun"
	"github.com/ochestra-tech/kubeopera/internal/gitserver"
)

// These tests run the real source-controller and kustomize-controller
// against the target and a real git server with basic auth.

const (
	gitUser     = "fleet-bot"
	gitPassword = "s3cret-token"
	// fluxTimeout bounds each wait for Flux; a reconcile takes seconds.
	fluxTimeout = 2 * time.Minute
)

// flux is what the subtests share: one git server, one pair of controllers.
type flux struct {
	git *gitserver.Server
}

func TestFluxAppliesTheTree(t *testing.T) {
	ctx := context.Background()
	f := flux{git: gitserver.Start(t, gitserver.Options{Username: gitUser, Password: gitPassword})}
	if _, err := fluxrun.Start(ctx, t, target.KubeconfigPath); err != nil {
		t.Fatal(err)
	}
	t.Run("applies both layers, then follows a new commit", f.happyPath)
	t.Run("fails with Flux's message when apps cannot be built", f.buildFailure)
	t.Run("fails with Flux's message when the API server rejects an object", f.invalidObject)
	t.Run("fails with the GitRepository's message on wrong credentials", f.wrongCredentials)
}

// tree commits a cluster tree: infrastructure makes a namespace and a
// ConfigMap in it, apps a ConfigMap there; it returns the last commit.
func (f flux) tree(t testing.TB, repo, id string, apps map[string]string) string {
	t.Helper()
	base := "clusters/" + id
	ns := "app-" + id
	files := map[string]string{
		base + "/infrastructure/kustomization.yaml": kustomizationYAML("namespace.yaml", "settings.yaml"),
		base + "/infrastructure/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n",
		base + "/infrastructure/settings.yaml":      configMapYAML("infra-settings", ns, "tier", "infrastructure"),
	}
	for name, content := range apps {
		files[base+"/apps/"+name] = strings.ReplaceAll(content, "NAMESPACE", ns)
	}
	var commit string
	for path, content := range files {
		commit = f.git.CommitDirect(t, repo, "main", path, content, "add "+path)
	}
	return commit
}

func kustomizationYAML(resources ...string) string {
	return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + strings.Join(resources, "\n- ") + "\n"
}

func configMapYAML(name, ns, key, value string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: " + ns + "\ndata:\n  " + key + ": " + value + "\n"
}

// credentials creates the git credentials Secret the pipeline would.
func credentials(t testing.TB, name, password string) {
	t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace},
		StringData: map[string]string{"username": gitUser, "password": password},
	}
	if err := kube.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls Check until done says the report is final, failing the test
// after fluxTimeout; every report seen goes through done.
func waitFor(t testing.TB, id, commit string, done func(Report) bool) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fluxTimeout)
	defer cancel()
	var last Report
	for {
		r, err := Check(ctx, kube, id, commit, nil)
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		if done(r) {
			return r
		}
		last = r
		select {
		case <-ctx.Done():
			t.Fatalf("Flux did not get there in %s; last report: %+v", fluxTimeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (f flux) happyPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	id := "happy"
	url := f.git.CreateRepo(t, id)
	commit := f.tree(t, id, id, map[string]string{
		"kustomization.yaml": kustomizationYAML("config.yaml"),
		"config.yaml":        configMapYAML("app-config", "NAMESPACE", "version", `"1"`),
	})
	credentials(t, "git-happy", gitPassword)
	s := Sync{ClusterID: id, URL: url, SecretName: "git-happy", Path: "clusters/" + id}

	start := time.Now()
	if err := Apply(ctx, kube, s); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	r := waitFor(t, id, commit, func(r Report) bool {
		if r.Failed {
			t.Fatalf("Check failed on the happy path: %s", r.Message)
		}
		if !r.Ready && !seen[r.Message] {
			seen[r.Message] = true
			t.Logf("progress: %s", r.Message)
		}
		return r.Ready
	})
	t.Logf("Apply to Ready: %s (%s)", time.Since(start).Round(time.Millisecond), r.Message)
	if !strings.Contains(r.Message, "main@sha1:"+commit) {
		t.Errorf("ready message %q does not name the commit", r.Message)
	}
	expectConfigMap(t, "app-"+id, "infra-settings", "tier", "infrastructure")
	expectConfigMap(t, "app-"+id, "app-config", "version", "1")
	if err := Apply(ctx, kube, s); err != nil {
		t.Fatalf("Apply again: %v", err)
	}
	if r, err := Check(ctx, kube, id, commit, nil); err != nil || !r.Ready {
		t.Errorf("after a second Apply: %+v, %v; want still Ready", r, err)
	}

	next := f.git.CommitDirect(t, id, "main", "clusters/"+id+"/apps/config.yaml",
		configMapYAML("app-config", "app-"+id, "version", `"2"`), "bump app-config")
	r, err := Check(ctx, kube, id, next, nil)
	if err != nil || r.Ready || r.Failed || !strings.Contains(r.Message, "not yet fetched") {
		t.Fatalf("Check of a commit Flux has not fetched: %+v, %v; want waiting for the fetch", r, err)
	}
	start = time.Now()
	if err := RequestFetch(ctx, kube, id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, id, next, func(r Report) bool {
		if r.Failed {
			t.Fatalf("Check failed on the second commit: %s", r.Message)
		}
		return r.Ready
	})
	t.Logf("RequestFetch to Ready at the next commit: %s", time.Since(start).Round(time.Millisecond))
	expectConfigMap(t, "app-"+id, "app-config", "version", "2")
}

func expectConfigMap(t *testing.T, ns, name, key, want string) {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := kube.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
		t.Fatalf("ConfigMap %s/%s Flux should have applied: %v", ns, name, err)
	}
	if cm.Data[key] != want {
		t.Errorf("ConfigMap %s/%s %s = %q, want %q", ns, name, key, cm.Data[key], want)
	}
}

func (f flux) buildFailure(t *testing.T) {
	t.Parallel()
	id := "unbuildable"
	url := f.git.CreateRepo(t, id)
	commit := f.tree(t, id, id, map[string]string{
		"kustomization.yaml": kustomizationYAML("config.yaml", "missing-file.yaml"),
		"config.yaml":        configMapYAML("app-config", "NAMESPACE", "version", `"1"`),
	})
	credentials(t, "git-"+id, gitPassword)
	if err := Apply(context.Background(), kube, Sync{ClusterID: id, URL: url, SecretName: "git-" + id, Path: "clusters/" + id}); err != nil {
		t.Fatal(err)
	}
	r := waitFor(t, id, commit, func(r Report) bool { return r.Failed || r.Ready })
	t.Logf("report: %+v", r)
	if !r.Failed || !strings.HasPrefix(r.Message, "Kustomization flux-system/kubeopera-unbuildable-apps: ") ||
		!strings.Contains(r.Message, "missing-file.yaml") {
		t.Errorf("report %+v, want Failed naming the apps Kustomization and missing-file.yaml", r)
	}
}

func (f flux) invalidObject(t *testing.T) {
	t.Parallel()
	id := "invalid"
	url := f.git.CreateRepo(t, id)
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: no-selector\n  namespace: NAMESPACE\nspec:\n" +
		"  template:\n    metadata:\n      labels: {app: x}\n    spec:\n      containers:\n      - name: x\n        image: example.invalid/x\n"
	commit := f.tree(t, id, id, map[string]string{
		"kustomization.yaml": kustomizationYAML("deployment.yaml"),
		"deployment.yaml":    deployment,
	})
	credentials(t, "git-"+id, gitPassword)
	if err := Apply(context.Background(), kube, Sync{ClusterID: id, URL: url, SecretName: "git-" + id, Path: "clusters/" + id}); err != nil {
		t.Fatal(err)
	}
	r := waitFor(t, id, commit, func(r Report) bool { return r.Failed || r.Ready })
	t.Logf("report: %+v", r)
	if !r.Failed || !strings.HasPrefix(r.Message, "Kustomization flux-system/kubeopera-invalid-apps: ") ||
		!strings.Contains(r.Message, "no-selector") || !strings.Contains(r.Message, "selector") {
		t.Errorf("report %+v, want Failed naming the apps Kustomization, the Deployment and its selector", r)
	}
}

func (f flux) wrongCredentials(t *testing.T) {
	t.Parallel()
	id := "wrongpass"
	url := f.git.CreateRepo(t, id)
	commit := f.git.Head(t, id, "main")
	credentials(t, "git-"+id, "not-the-password")
	if err := Apply(context.Background(), kube, Sync{ClusterID: id, URL: url, SecretName: "git-" + id, Path: "clusters/" + id}); err != nil {
		t.Fatal(err)
	}
	r := waitFor(t, id, commit, func(r Report) bool { return r.Failed || r.Ready })
	t.Logf("report: %+v", r)
	if !r.Failed || !strings.HasPrefix(r.Message, "GitRepository flux-system/kubeopera-wrongpass: ") ||
		!strings.Contains(strings.ToLower(r.Message), "authentication") {
		t.Errorf("report %+v, want Failed naming the GitRepository and authentication", r)
	}
	if strings.Contains(r.Message, "not-the-password") {
		t.Error("the report shows the password")
	}
}

// BenchmarkApplyToReady measures, per cluster, the time from Apply to Check
// reporting Ready: the first fetch by source-controller, then both
// Kustomizations applied in order by kustomize-controller.
func BenchmarkApplyToReady(b *testing.B) {
	ctx := context.Background()
	f := flux{git: gitserver.Start(b, gitserver.Options{Username: gitUser, Password: gitPassword})}
	if _, err := fluxrun.Start(ctx, b, target.KubeconfigPath); err != nil {
		b.Fatal(err)
	}
	credentials(b, "git-bench", gitPassword)
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		id := fmt.Sprintf("bench-%d", n)
		url := f.git.CreateRepo(b, id)
		commit := f.tree(b, id, id, map[string]string{
			"kustomization.yaml": kustomizationYAML("config.yaml"),
			"config.yaml":        configMapYAML("app-config", "NAMESPACE", "version", `"1"`),
		})
		b.StartTimer()
		if err := Apply(ctx, kube, Sync{ClusterID: id, URL: url, SecretName: "git-bench", Path: "clusters/" + id}); err != nil {
			b.Fatal(err)
		}
		waitFor(b, id, commit, func(r Report) bool {
			if r.Failed {
				b.Fatalf("Check failed: %s", r.Message)
			}
			return r.Ready
		})
	}
}
