package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/internal/testkit/benchsummary"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

const (
	benchRows = 10000
	benchPage = 100
)

// BenchmarkListClusters10000 serves 100-row pages of GET /clusters over
// 10,000 rows whose HostClusters live on a real API server, alternating a
// request with sync-on-read and one without in every iteration (same store,
// same machine load, pages taken in turn from the whole list), and reports
// p50/p99 of each; the goal is sync within 1.2× of plain at both.
func BenchmarkListClusters10000(b *testing.B) {
	e := newEnv(b, envOpts{management: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the HostCluster cache
	ids := seedHostClusters(b, e, ctx)
	seedStore(b, e.st, ids)
	reg, err := hostclusters.NewKube(e.sb.Config)
	if err != nil {
		b.Fatal(err)
	}
	if err := reg.StartCache(ctx); err != nil {
		b.Fatal(err)
	}
	waitUntilCached(b, ctx, reg, ids[len(ids)-1])
	withSync := New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(b), Registry: reg, Logger: discardLogger()})
	noSync := New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(b), Registry: reg, Logger: discardLogger(), NoSyncOnRead: true})
	pages := pageURLs(b, e.st)
	for _, p := range pages { // the first reads write back every phase; measure the steady state
		get(b, withSync, p, e.viewer)
	}
	var synced, plain []time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		p := pages[i%len(pages)]
		// Each page is asked for twice, and the second request finds it
		// in the CPU's caches: always taking sync-on-read first made it
		// look 1.17x the plain page at p50 where plain first gave 1.04x.
		// The order alternates, for each page across passes too.
		if (i+i/len(pages))%2 == 0 {
			synced = append(synced, get(b, withSync, p, e.viewer))
			plain = append(plain, get(b, noSync, p, e.viewer))
		} else {
			plain = append(plain, get(b, noSync, p, e.viewer))
			synced = append(synced, get(b, withSync, p, e.viewer))
		}
		i++
	}
	b.StopTimer()
	for _, q := range []struct {
		name string
		p    float64
	}{{"p50", 0.5}, {"p99", 0.99}} {
		b.ReportMetric(ms(synced, q.p), "sync-"+q.name+"-ms")
		b.ReportMetric(ms(plain, q.p), "plain-"+q.name+"-ms")
		benchsummary.Print(benchsummary.Figure{Name: "clusters API 100-row page of 10,000, " + q.name + " with sync-on-read (floor: without)",
			Value: ms(synced, q.p), Floor: ms(plain, q.p), Unit: "ms", Op: "<=", Limit: 1.2})
	}
	if row, _ := e.st.GetCluster(ctx, ids[0]); row.Status != "Ready" {
		b.Fatalf("sync did not write back: %+v", row)
	}
}

// BenchmarkListClustersPostgres50 serves 100-row pages of 10,000 rows from
// PostgreSQL (hack/with-postgres.sh) over HTTP to 50 concurrent clients,
// each taking 20 pages in turn, and reports their p99 over every iteration
// (goal under 50ms) against one client's in the same run. Each client's
// first request opens its connection, all 50 at once: those are reported
// apart (their slowest), since they measured the burst of 50 connections
// rather than the pages (all ten slowest requests of a run were first
// requests, 61-70 ms).
// It has no management cluster, so sync-on-read has nothing to merge; the
// benchmark above measures what sync-on-read adds.
func BenchmarkListClustersPostgres50(b *testing.B) {
	if os.Getenv(testpg.EnvURL) == "" {
		b.Skip("needs PostgreSQL: run under hack/with-postgres.sh")
	}
	e := newEnv(b, envOpts{postgres: true})
	ids := make([]string, benchRows)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	seedStore(b, e.st, ids)
	base := "http://" + e.listen(b)
	// A run first, untimed, so the pool's connections are open and have the
	// statements prepared, as in a server that has been serving.
	concurrentPages(b, e, base, 50)
	var many, one, first []time.Duration
	for b.Loop() {
		pages, firsts := concurrentPages(b, e, base, 50)
		many, first = append(many, pages...), append(first, firsts...)
		pages, _ = concurrentPages(b, e, base, 1)
		one = append(one, pages...)
	}
	p99, alone, burst := ms(many, 0.99), ms(one, 0.99), ms(first, 1)
	b.ReportMetric(p99, "p99-ms")
	b.ReportMetric(alone, "one-client-p99-ms")
	b.ReportMetric(burst, "first-request-max-ms")
	benchsummary.Print(benchsummary.Figure{Name: "clusters API 100-row page of 10,000, PostgreSQL, 50 concurrent clients, p99 (floor: 1 client)",
		Value: p99, Floor: alone, Unit: "ms", Op: "<", Limit: 50, Absolute: true})
	benchsummary.Print(benchsummary.Figure{Name: "clusters API, PostgreSQL: 50 clients' first requests at once, new connections, slowest",
		Value: burst, Unit: "ms"})
}

// seedHostClusters creates benchRows HostClusters, each Ready.
func seedHostClusters(b *testing.B, e *env, ctx context.Context) []string {
	cfg := rest.CopyConfig(e.sb.Config)
	cfg.QPS, cfg.Burst = 2000, 4000
	dyn := dynamic.NewForConfigOrDie(cfg).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	ids := make([]string, benchRows)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	inParallel(b, len(ids), func(i int) error {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubeopera.io/v1alpha1", "kind": "HostCluster",
			"metadata": map[string]any{"name": ids[i], "namespace": hostclusters.Namespace},
			"spec": map[string]any{"mode": "connect_existing", "provider": "aws",
				"connectKubeconfigSecretRef": map[string]any{"name": hostclusters.KubeconfigSecretName(ids[i])}}}}
		created, err := dyn.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		created.Object["status"] = map[string]any{"phase": "Ready", "message": "all good"}
		_, err = dyn.UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	})
	return ids
}

// seedStore creates one Pending row per ID, in ID order.
func seedStore(b *testing.B, st *store.Store, ids []string) {
	inParallel(b, len(ids), func(i int) error {
		return st.CreateCluster(context.Background(), &store.Cluster{ID: ids[i], Name: fmt.Sprintf("c-%05d", i),
			Provider: "aws", Source: store.SourceConnectedExisting, Status: "Pending"})
	})
}

// inParallel runs do(i) for every i below n on 16 goroutines.
func inParallel(b *testing.B, n int, do func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := do(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

func waitUntilCached(b *testing.B, ctx context.Context, reg *hostclusters.Kube, last string) {
	for deadline := time.Now().Add(5 * time.Minute); ; {
		got, _ := reg.Observe(ctx, []string{last})
		if got[last].Phase == "Ready" {
			return
		}
		if time.Now().After(deadline) {
			b.Fatal("the HostCluster cache never saw the last status")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pageURLs walks every 100-row page once and returns their URLs.
func pageURLs(b *testing.B, st *store.Store) []string {
	var urls []string
	f := store.ClusterFilter{Limit: benchPage}
	for {
		urls = append(urls, fmt.Sprintf("/api/v1/clusters?limit=%d&continue=%s", benchPage, f.Continue))
		p, err := st.ListClusterPage(context.Background(), f)
		if err != nil {
			b.Fatal(err)
		}
		if p.Continue == "" {
			return urls
		}
		f.Continue = p.Continue
	}
}

func get(b *testing.B, app *fiber.App, url, token string) time.Duration {
	req := httptest.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := app.Test(req, -1)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("GET %s: %v %v", url, err, resp)
	}
	resp.Body.Close()
	return time.Since(start)
}

func ms(d []time.Duration, q float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[int(float64(len(s)-1)*q)].Microseconds()) / 1000
}

// concurrentPages asks the server at base for the pages of e's store from
// n clients at once, each taking one page on a new connection and then 20
// in turn, and returns the times of the 20s and of the first ones.
func concurrentPages(b *testing.B, e *env, base string, n int) (pages, first []time.Duration) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 50}, Timeout: time.Minute}
	call := func(url string) (time.Duration, error) {
		req, _ := http.NewRequest(http.MethodGet, base+url, nil)
		req.Header.Set("Authorization", "Bearer "+e.viewer)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		// Read the whole page, as a client does: the time counts its
		// transfer, and a drained body lets the connection be reused.
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
		}
		return time.Since(start), nil
	}
	urls := pageURLs(b, e.st) // the caller's untimed first run warmed the pool and the database
	var mu sync.Mutex
	inParallelN(b, n, func(w int) error {
		for i := range 21 {
			d, err := call(urls[(w*21+i)%len(urls)])
			if err != nil {
				return err
			}
			mu.Lock()
			if i == 0 {
				first = append(first, d)
			} else {
				pages = append(pages, d)
			}
			mu.Unlock()
		}
		return nil
	})
	return pages, first
}

// inParallelN runs do(w) for w below n, all at once.
func inParallelN(b *testing.B, n int, do func(w int) error) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := do(w); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}
