package fluxinstall_test

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// TestConcurrentInstallsToTwoClusters installs the same release, in the
// same namespace, into two clusters at once: each cluster gets its own
// release, nothing of one lands in the other.
func TestConcurrentInstallsToTwoClusters(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	other, err := sandbox.Start(ctx, sandbox.Options{Workloads: true, Nodes: []sandbox.Node{{Name: "w1"}}})
	if err != nil {
		t.Fatalf("start a second sandbox: %v", err)
	}
	t.Cleanup(func() {
		if err := other.Stop(); err != nil {
			t.Errorf("stop the second sandbox: %v", err)
		}
	})
	repo := fluxchart.Serve(t)
	const ns = "flux-twin"
	opts := fluxinstall.Options{Chart: fluxinstall.Chart{RepoURL: repo.URL}, Namespace: ns, ReleaseName: "flux-twin",
		Values: isolated(nil), CacheDir: t.TempDir()}
	clusters := []*sandbox.Sandbox{sb, other}
	rels := make([]fluxinstall.Release, len(clusters))
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Add(1)
		go func(i int, cfg *rest.Config) {
			defer wg.Done()
			rels[i], errs[i] = fluxinstall.Install(ctx, cfg, opts)
		}(i, c.Config)
	}
	wg.Wait()
	for i := range clusters {
		if errs[i] != nil || rels[i].Revision != 1 || rels[i].Upgraded {
			t.Fatalf("cluster %d: %+v %v, want a first install", i, rels[i], errs[i])
		}
		records, err := clusters[i].Client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=flux-twin"})
		if err != nil || len(records.Items) != 1 {
			t.Fatalf("cluster %d holds %d release records (%v), want 1", i, len(records.Items), err)
		}
	}
	for _, c := range clusters {
		waitReady(ctx, t, c.Client, ns)
	}
}
