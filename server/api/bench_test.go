package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// BenchmarkListClusters1000 serves GET /clusters over 1,000 rows whose
// HostClusters live on a real API server, alternating a request with
// sync-on-read and one without in every iteration (same store, same
// machine load), and reports p50/p99 of each and the ratio of the medians.
func BenchmarkListClusters1000(b *testing.B) {
	e := newEnv(b, envOpts{management: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the HostCluster cache
	cfg := rest.CopyConfig(e.sb.Config)
	cfg.QPS, cfg.Burst = 2000, 4000
	dyn := dynamic.NewForConfigOrDie(cfg).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	for i := range 1000 {
		row := &store.Cluster{Name: fmt.Sprintf("c-%04d", i), Provider: "aws", Source: store.SourceConnectedExisting, Status: "Pending"}
		if err := e.st.CreateCluster(ctx, row); err != nil {
			b.Fatal(err)
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubeopera.io/v1alpha1", "kind": "HostCluster",
			"metadata": map[string]any{"name": row.ID, "namespace": hostclusters.Namespace}, "spec": map[string]any{"mode": "connect_existing", "provider": "aws",
				"connectKubeconfigSecretRef": map[string]any{"name": hostclusters.KubeconfigSecretName(row.ID)}},
			"status": map[string]any{"phase": "Ready", "message": "all good"}}}
		created, err := dyn.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		created.Object["status"] = obj.Object["status"]
		if _, err := dyn.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reg, err := hostclusters.NewKube(e.sb.Config)
	if err != nil {
		b.Fatal(err)
	}
	if err := reg.StartCache(ctx); err != nil {
		b.Fatal(err)
	}
	for { // until the cache has every status written above
		got, _ := reg.List(ctx)
		if n := len(got); n == 1000 && got[lastRowID(b, e)].Phase == "Ready" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	withSync := New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(b), Registry: reg, Logger: discardLogger()})
	noSync := New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(b), Registry: reg, Logger: discardLogger(), NoSyncOnRead: true})
	get := func(app interface {
		Test(*http.Request, ...int) (*http.Response, error)
	}) time.Duration {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/clusters", nil)
		req.Header.Set("Authorization", "Bearer "+e.viewer)
		start := time.Now()
		resp, err := app.Test(req, -1)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("GET /clusters: %v %v", err, resp)
		}
		resp.Body.Close()
		return time.Since(start)
	}
	get(withSync) // the first read writes back all 1,000 phases; measure the steady state
	var synced, plain []time.Duration
	b.ResetTimer()
	for b.Loop() {
		synced = append(synced, get(withSync))
		plain = append(plain, get(noSync))
	}
	b.StopTimer()
	p := func(d []time.Duration, q float64) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[int(float64(len(s)-1)*q)].Microseconds()) / 1000
	}
	b.ReportMetric(p(synced, 0.5), "sync-p50-ms")
	b.ReportMetric(p(synced, 0.99), "sync-p99-ms")
	b.ReportMetric(p(plain, 0.5), "plain-p50-ms")
	b.ReportMetric(p(plain, 0.99), "plain-p99-ms")
	b.ReportMetric(p(synced, 0.5)/p(plain, 0.5), "sync/plain-p50")
	rows, _ := e.st.ListClusters(ctx)
	if rows[0].Status != "Ready" {
		b.Fatalf("sync did not write back: %+v", rows[0])
	}
}

func lastRowID(b *testing.B, e *env) string {
	rows, err := e.st.ListClusters(context.Background())
	if err != nil || len(rows) == 0 {
		b.Fatal(err)
	}
	return rows[len(rows)-1].ID
}
