package fleet

import (
	"context"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/server/store"
)

func TestParseRegistry(t *testing.T) {
	got, err := ParseRegistry(" a=/k/a.yaml, b=/k/b.yaml ,")
	if err != nil || len(got) != 2 || got[1] != (Entry{"b", "/k/b.yaml"}) {
		t.Fatalf("ParseRegistry = %v, %v", got, err)
	}
	for _, bad := range []string{"a", "=/p", "a="} {
		if _, err := ParseRegistry(bad); err == nil {
			t.Errorf("ParseRegistry(%q) accepted a malformed entry", bad)
		}
	}
	if got, err := ParseRegistry(""); err != nil || len(got) != 0 {
		t.Errorf("empty setting = %v, %v", got, err)
	}
}

func TestTargetsFallBackToTheHostAlone(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	self := &rest.Config{Host: "https://self.invalid"}
	got, err := Source{Store: st, Self: self}.Targets(ctx)
	if err != nil || len(got) != 1 || got[0].Name != "host" || got[0].Config.Host != self.Host {
		t.Fatalf("targets = %+v, %v", got, err)
	}
	// A connected cluster without a stored kubeconfig is not a target, and
	// once anything is registered the fallback no longer applies.
	if err := st.CreateCluster(ctx, &store.Cluster{Name: "c", Provider: "aws", Source: store.SourceConnectedExisting}); err != nil {
		t.Fatal(err)
	}
	got, err = Source{Store: st}.Targets(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("targets without kubeconfigs = %+v, %v", got, err)
	}
	if _, err := (Source{Store: st, Registry: []Entry{{"x", "/does/not/exist"}}}).Targets(ctx); err == nil {
		t.Errorf("a CLUSTER_REGISTRY entry with a missing file was accepted")
	}
}
