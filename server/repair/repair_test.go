package repair

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// One management cluster for every case: each case uses its own IDs.
func startManagement(t *testing.T) client.Client {
	t.Helper()
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Stop() })
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1.AddToScheme(scheme)
	c, err := client.New(sb.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: v1.Namespace}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func openStore(t *testing.T, dsn string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

func hostCluster(id, name string, mode v1.Mode) *v1.HostCluster {
	hc := &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: v1.Namespace},
		Spec: v1.HostClusterSpec{DisplayName: name, Mode: mode, Provider: "aws", Region: "eu-north-1"}}
	if mode == v1.ModeConnectExisting {
		hc.Spec.ConnectKubeconfigSecretRef = &v1.SecretKeyRef{Name: "hostcluster-" + id + "-kubeconfig", Key: "kubeconfig"}
	} else {
		hc.Spec.Provisioning = &v1.Provisioning{Plugin: "aws-eks"}
	}
	return hc
}

// After a crash between the two writes, or a failure to undo the first,
// the sweep leaves rows and HostClusters in step, on both databases: a row
// whose HostCluster never appeared goes once the hand-over grace passed,
// a row whose HostCluster is gone goes, a HostCluster without a row gets
// one, each repair audited; a HostCluster being deleted is not given a
// row back, and a self-registered row is never touched.
func TestSweepRepairsBothDirections(t *testing.T) {
	k := startManagement(t)
	dbs := map[string]func(*testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "k.db") },
		"postgres": func(t *testing.T) string { return testpg.Database(t) },
	}
	for name, dsn := range dbs {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t, dsn(t))
			p := name[:2] // IDs unique per database run on the one management cluster
			now := time.Now()
			rows := []*store.Cluster{
				{ID: p + "-young", Name: p + "-young", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Pending"},
				{ID: p + "-stale", Name: p + "-stale", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Pending"},
				{ID: p + "-ready", Name: p + "-ready", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"},
				{ID: p + "-gone", Name: p + "-gone", Provider: "aws", Source: store.SourceProvisionedEKS, Status: "Deleting"},
				{ID: p + "-self", Name: p + "-self", Provider: "aws", Source: store.SourceSelfRegistered, Status: "Ready"},
			}
			for _, r := range rows {
				if err := st.CreateCluster(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := k.Create(ctx, hostCluster(p+"-ready", p+"-ready", v1.ModeConnectExisting)); err != nil {
				t.Fatal(err)
			}
			if err := k.Create(ctx, hostCluster(p+"-lost", p+"-ready", v1.ModeProvisionEKS)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = k.Delete(context.Background(), hostCluster(p+"-lost", "", "")) })
			dying := hostCluster(p+"-dying", p+"-dying", v1.ModeConnectExisting)
			dying.Finalizers = []string{"kubeopera.io/cleanup"}
			if err := k.Create(ctx, dying); err != nil {
				t.Fatal(err)
			}
			if err := k.Delete(ctx, dying); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				dying.Finalizers = nil
				_ = k.Update(context.Background(), dying)
			})
			// Both Pending rows were made now: within the grace at first.
			clock := now.Add(20 * time.Second)
			s := &Sweeper{Store: st, Reader: k, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return clock }}
			res, err := s.Sweep(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Within the grace only the row whose HostCluster finished
			// going is removed (its cached status says it had one).
			if res.RowsRemoved != 1 || res.RowsRebuilt != 1 {
				t.Errorf("first sweep %+v, want 1 removed (gone) and 1 rebuilt (lost)", res)
			}
			clock = now.Add(45 * time.Second)
			// The ready row's HostCluster is deleted behind its back.
			if err := k.Delete(ctx, hostCluster(p+"-ready", "", "")); err != nil {
				t.Fatal(err)
			}
			res, err = s.Sweep(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.RowsRemoved != 3 || res.RowsRebuilt != 0 {
				t.Errorf("second sweep %+v, want 3 removed (young, stale, ready)", res)
			}
			left, err := st.ListClusters(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]store.Cluster{}
			for _, r := range left {
				got[r.ID] = r
			}
			if len(got) != 2 {
				t.Errorf("rows left %v, want the self-registered row and the rebuilt one", keys(got))
			}
			if _, ok := got[p+"-self"]; !ok {
				t.Error("the self-registered row was removed")
			}
			lost, ok := got[p+"-lost"]
			if !ok || lost.Source != store.SourceProvisionedEKS || lost.Name == p+"-ready" || lost.Status != "Pending" {
				t.Errorf("rebuilt row %+v (found %v): want source provisioned_eks, a name of its own, status Pending", lost, ok)
			}
			if _, ok := got[p+"-dying"]; ok {
				t.Error("a HostCluster being deleted was given a row back")
			}
			events, err := st.ListAuditEvents(ctx, store.AuditFilter{Actor: Actor})
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != 5 {
				t.Errorf("%d audit events by %s, want 5 (4 removals, 1 rebuild)", len(events), Actor)
			}
		})
	}
}

// A management cluster with no HostCluster at all while the database
// lists several clusters the controller reported on is the wrong cluster:
// nothing is removed.
func TestSweepHoldsRowsWhenTheManagementClusterIsEmpty(t *testing.T) {
	ctx := context.Background()
	k := startManagement(t)
	st := openStore(t, filepath.Join(t.TempDir(), "k.db"))
	for _, n := range []string{"a", "b"} {
		if err := st.CreateCluster(ctx, &store.Cluster{ID: n, Name: n, Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"}); err != nil {
			t.Fatal(err)
		}
	}
	s := &Sweeper{Store: st, Reader: k, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	res, err := s.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Held != 2 || res.RowsRemoved != 0 {
		t.Errorf("sweep %+v, want both rows held", res)
	}
}

func keys(m map[string]store.Cluster) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
