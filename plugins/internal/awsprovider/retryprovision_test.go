package awsprovider

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// The host's Retry of a Failed vanilla cluster is Provision again: a
// worker failed its bootstrap, the cluster is Failed (for a person:
// UserFixable), Provision replaces exactly that instance and the new
// operation is Succeeded once its replacement joined.
func TestRetryOfAFailedWorkerThroughProvision(t *testing.T) {
	w := newDay2World(t, "vanilla", func() *Provider { return Vanilla("test") }, map[string]string{"region": "eu-north-1",
		"credentialRef": "c", "apiAllowedCIDRs": "203.0.113.0/24", "nodeCount": "1"})
	src, err := os.ReadFile(filepath.Join(w.modules, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	group := `
output "worker_autoscaling_group_name" {
  value = "kubeopera-${var.cluster_id}-workers"
}
`
	if err := os.WriteFile(filepath.Join(w.modules, "main.tf"), append(src, group...), 0o600); err != nil {
		t.Fatal(err)
	}
	const id = "c-retry"
	inputs := map[string]string{"region": "eu-north-1", "credentialRef": "c", "apiAllowedCIDRs": "203.0.113.0/24", "nodeCount": "2"}
	w.aws.ASG.SetGroup("kubeopera-"+id+"-workers", fakeaws.GroupInstance{ID: "i-0ok", State: fakeaws.InService},
		fakeaws.GroupInstance{ID: "i-0bad", State: fakeaws.InService})
	w.aws.SSM.Put("/kubeopera/"+id+"/members/0", "String", "ready")
	w.aws.SSM.Put("/kubeopera/"+id+"/workers/i-0ok", "String", "joined")
	w.aws.SSM.Put("/kubeopera/"+id+"/workers/i-0bad", "String", "failed: kubeadm-join: kubeadm join failed 3 times")
	ctx := context.Background()
	provision := func() string {
		t.Helper()
		op, err := w.p.Provision(ctx, sdk.ProvisionRequest{ClusterID: id, Inputs: inputs, Credentials: w.creds})
		if err != nil {
			t.Fatalf("Provision: %v", err)
		}
		return op.ID
	}
	first := provision()
	if st := w.follow(t, w.p, first, sdk.Succeeded); st.State != sdk.Failed || st.ErrorClass != sdk.UserFixable {
		t.Fatalf("a worker failed: %s (%s) %q; want Failed, UserFixable", st.State, st.ErrorClass, st.Message)
	}

	retried := provision()
	if retried == first {
		t.Errorf("the retry's operation %q is the failed one's", retried)
	}
	if got := w.aws.ASG.Terminated(); !slices.Equal(got, []string{"i-0bad"}) {
		t.Fatalf("replaced %v, want exactly i-0bad", got)
	}
	// The host asks again before the replacement joined (it lost the
	// answer, or a status write conflicted): the same operation, nothing
	// replaced twice.
	if again := provision(); again != retried {
		t.Errorf("Provision asked again after the retry answered %q, want the retry's %q", again, retried)
	}
	if got := w.aws.ASG.Terminated(); !slices.Equal(got, []string{"i-0bad"}) {
		t.Fatalf("after Provision was asked again, replaced %v, want still exactly i-0bad", got)
	}
	for _, i := range w.aws.ASG.Group("kubeopera-" + id + "-workers") {
		w.aws.SSM.Put("/kubeopera/"+id+"/workers/"+i.ID, "String", "joined")
	}
	if st := w.follow(t, w.p, retried, sdk.Succeeded); st.State != sdk.Succeeded {
		t.Fatalf("after the replacement joined: %s %q; want Succeeded", st.State, st.Message)
	}
}
