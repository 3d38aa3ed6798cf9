package controller

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/testkit/benchsummary"
)

// The throughput settings of the fleet benchmark: the defaults of the
// kubeopera controller flags --management-qps, --management-burst and
// --concurrency.
const (
	fleetQPS         = 200
	fleetBurst       = 400
	fleetConcurrency = 16
)

// BenchmarkConnect5000 connects 5,000 HostClusters (KUBEOPERA_BENCH_CLUSTERS
// overrides) created as the server creates them, finalizer included, to
// one live API server, and reports: clusters out of ValidatingAccess per
// second, from the first HostCluster created (once the controller runs) to
// the last one validated,
// against the floor of a bare client that creates and status-patches the
// same HostClusters at the same QPS (their kubeconfig Secrets exist before
// either is timed); the RSS of this process (controller,
// its caches and the test client); and the writes per cluster while
// onboarding and in a steady state (a controller restart, which reconciles
// every cluster as a resync does), counted as watch events.
func BenchmarkConnect5000(b *testing.B) {
	n := 5000
	if v, err := strconv.Atoi(os.Getenv("KUBEOPERA_BENCH_CLUSTERS")); err == nil && v > 0 {
		n = v
	}
	ctrl.SetLogger(logr.Discard()) // the manager's own logs; the figures are the output
	for b.Loop() {
		e := newEnv(b, 0, nil)
		e.halt()               // the env's controller runs the test defaults; this one runs the flags' defaults
		createSecrets(b, e, n) // input of both runs, as the server writes it before the HostCluster
		floor := bareClientFloor(b, e, n)
		e.startFleet()
		// Timed from a running controller: a HostCluster created before
		// its informer's first list is in that list, and controller-runtime's
		// priority queue serves the initial list after all other work (the
		// first 40-80 clusters then waited out the whole fleet, 15-20 s).
		e.connect("warmup", e.mgmt.Kubeconfig)
		e.waitPhase("warmup", v1.PhaseBootstrappingFlux, time.Minute)
		events := watchHostClusters(b, e)
		start := time.Now()
		createFleet(b, e, n)
		waitValidated(b, events, n)
		elapsed := time.Since(start)
		onboarding := events.modified.Load()
		rss := float64(rssKiB()) / 1024

		e.halt()
		before, steadyFrom := reconciles(b), events.modified.Load()
		e.startFleet() // a restart reconciles every cluster once, as a resync does
		for deadline := time.Now().Add(10 * time.Minute); reconciles(b)-before < float64(n); {
			if time.Now().After(deadline) {
				b.Fatalf("the restarted controller reconciled %.0f of %d clusters in 10 minutes", reconciles(b)-before, n)
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(2 * time.Second) // let any write the restart caused arrive
		steady := events.modified.Load() - steadyFrom
		e.halt()

		rate := float64(n) / elapsed.Seconds()
		b.ReportMetric(rate, "validated/s")
		b.ReportMetric(floor, "floor-objects/s")
		b.ReportMetric(rss, "rss-MiB")
		b.ReportMetric(float64(onboarding)/float64(n), "writes/cluster-onboarding")
		b.ReportMetric(float64(steady)/float64(n), "writes/cluster-resync")
		name := fmt.Sprintf("controller: %d HostClusters", n)
		benchsummary.Print(benchsummary.Figure{Name: name + " out of ValidatingAccess/s (floor: bare client)",
			Value: rate, Floor: floor, Unit: "/s", Op: ">=", Limit: 100, Absolute: true})
		benchsummary.Print(benchsummary.Figure{Name: name + ", RSS of controller+test", Value: rss, Unit: "MiB", Op: "<=", Limit: 300})
		benchsummary.Print(benchsummary.Figure{Name: name + ", writes/cluster while onboarding", Value: float64(onboarding) / float64(n), Unit: "writes"})
		benchsummary.Print(benchsummary.Figure{Name: name + ", writes/cluster per resync (steady)", Value: float64(steady) / float64(n), Unit: "writes", Op: "<=", Limit: 1})
	}
}

// startFleet runs a controller manager with the fleet settings until halt.
func (e *env) startFleet() {
	cfg := rest.CopyConfig(e.mgmt.Config)
	cfg.QPS, cfg.Burst = fleetQPS, fleetBurst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: &skipNameValidation}})
	if err != nil {
		e.t.Fatal(err)
	}
	r := &Reconciler{Providers: HostProviders(e.host), Credentials: e.creds, AccessRetryWindow: time.Minute}
	if err := r.SetupWithManager(mgr, fleetConcurrency); err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.stop, e.done = cancel, make(chan error, 1)
	go func() { e.done <- mgr.Start(ctx) }()
}

// parallelDo runs do(i) for i in [0,n) on 16 goroutines.
func parallelDo(b *testing.B, n int, do func(i int) error) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := do(i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}

// fleetObject is HostCluster i as the server creates it.
func fleetObject(i int) (*corev1.Secret, *v1.HostCluster) {
	id := fmt.Sprintf("c%05d", i)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: v1.KubeconfigSecretName(id), Namespace: v1.Namespace,
		Labels: map[string]string{v1.ClusterIDLabel: id}}}
	hc := &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: v1.Namespace, Finalizers: []string{Finalizer}},
		Spec: v1.HostClusterSpec{Mode: v1.ModeConnectExisting, Provider: "other",
			ConnectKubeconfigSecretRef: &v1.SecretKeyRef{Name: s.Name, Key: v1.KubeconfigSecretKey}}}
	return s, hc
}

// createSecrets creates the kubeconfig Secrets of n clusters, pointing at
// the management API server itself.
func createSecrets(b *testing.B, e *env, n int) {
	parallelDo(b, n, func(i int) error {
		s, _ := fleetObject(i)
		s.Data = map[string][]byte{v1.KubeconfigSecretKey: e.mgmt.Kubeconfig}
		return e.c.Create(context.Background(), s)
	})
}

// createFleet creates n HostClusters as the server does.
func createFleet(b *testing.B, e *env, n int) {
	parallelDo(b, n, func(i int) error {
		_, hc := fleetObject(i)
		return e.c.Create(context.Background(), hc)
	})
}

// bareClientFloor creates n HostClusters and patches each one's status
// once with a plain client at the controller's QPS, returns objects/s, and
// removes them again.
func bareClientFloor(b *testing.B, e *env, n int) float64 {
	cfg := rest.CopyConfig(e.mgmt.Config)
	cfg.QPS, cfg.Burst = fleetQPS, fleetBurst
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	parallelDo(b, n, func(i int) error {
		_, hc := fleetObject(i)
		hc.Name, hc.Finalizers = "floor-"+hc.Name, nil
		if err := c.Create(ctx, hc); err != nil {
			return err
		}
		before := hc.DeepCopy()
		hc.Status.Phase, hc.Status.Message = v1.PhaseBootstrappingFlux, "floor"
		return c.Status().Patch(ctx, hc, client.MergeFrom(before))
	})
	rate := float64(n) / time.Since(start).Seconds()
	if err := e.c.DeleteAllOf(ctx, &v1.HostCluster{}, client.InNamespace(v1.Namespace)); err != nil {
		b.Fatal(err)
	}
	for {
		var list v1.HostClusterList
		if err := e.c.List(ctx, &list, client.InNamespace(v1.Namespace)); err != nil {
			b.Fatal(err)
		}
		if len(list.Items) == 0 {
			return rate
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func waitValidated(b *testing.B, events *hostClusterEvents, n int) {
	for events.validated.Load() < int64(n) {
		if msg, ok := events.failed.Load().(string); ok {
			b.Fatal(msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hostClusterEvents counts the MODIFIED watch events of HostClusters (one
// per write that changed an object; a no-op patch produces none) and the
// clusters that reached BootstrappingFlux, read from the same watch so the
// wait costs the API server nothing (a list of 5,000 every half second
// did). failed holds the first Failed cluster's message.
type hostClusterEvents struct {
	modified, validated atomic.Int64
	failed              atomic.Value
}

func watchHostClusters(b *testing.B, e *env) *hostClusterEvents {
	cfg := rest.CopyConfig(e.mgmt.Config)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	w, err := dyn.Resource(v1.GroupVersion.WithResource("hostclusters")).Namespace(v1.Namespace).
		Watch(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ev := &hostClusterEvents{}
	go func() {
		defer w.Stop()
		seen := map[string]bool{}
		for e := range w.ResultChan() {
			if e.Type != watch.Modified {
				continue
			}
			ev.modified.Add(1)
			o, ok := e.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			switch phase, _, _ := unstructured.NestedString(o.Object, "status", "phase"); phase {
			case string(v1.PhaseBootstrappingFlux):
				if !seen[o.GetName()] {
					seen[o.GetName()] = true
					ev.validated.Add(1)
				}
			case string(v1.PhaseFailed):
				msg, _, _ := unstructured.NestedString(o.Object, "status", "message")
				ev.failed.CompareAndSwap(nil, o.GetName()+" failed: "+msg)
			}
		}
	}()
	return ev
}
