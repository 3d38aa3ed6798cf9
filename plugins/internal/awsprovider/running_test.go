package awsprovider

import (
	"context"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// EKS upgraded the cluster itself (end of standard support): a day-2
// change is planned from the version EKS reports, so a scale keeps it and
// moves the node group up, and an explicit request for the old minor is a
// refused downgrade, never an apply that asks EKS for one.
func TestDayTwoPlansFromTheVersionEKSRuns(t *testing.T) {
	aws := fakeAWS(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	creds := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
	in := map[string]string{"region": "eu-north-1"}
	p := EKS("t")
	info, _ := p.GetInfo(context.Background())
	aws.EKS.SetCluster(fakeaws.Cluster{Name: "kubeopera-c1", Version: "1.36", Status: "ACTIVE"})

	rec := &day2Record{Applied: shape{Nodes: 2, Version: "1.35", NodeVersion: "1.35"}}
	if err := p.adoptRunningVersion(context.Background(), in, creds, "c1", rec); err != nil {
		t.Fatal(err)
	}
	if want := (shape{Nodes: 2, Version: "1.36", NodeVersion: "1.35"}); rec.Applied != want {
		t.Fatalf("applied = %+v, want %+v (the control plane EKS upgraded, the node group where it was)", rec.Applied, want)
	}
	target, err := p.target(info, rec.Applied, sdk.UpdateRequest{NodeCount: 3})
	if err != nil {
		t.Fatal(err)
	}
	if steps := p.plan(rec.Applied, target); len(steps) != 1 || steps[0] != (shape{Nodes: 3, Version: "1.36", NodeVersion: "1.36"}) {
		t.Errorf("a scale to 3 plans %+v, want one apply at 1.36 that moves the node group up too", steps)
	}
	if _, err := p.target(info, rec.Applied, sdk.UpdateRequest{KubernetesVersion: "1.35"}); err == nil {
		t.Error("asking for 1.35 on a cluster EKS runs at 1.36 was accepted")
	}

	t.Run("a cluster EKS moved past the plugin's versions is refused, saying so", func(t *testing.T) {
		aws.EKS.SetCluster(fakeaws.Cluster{Name: "kubeopera-c2", Version: "1.37", Status: "ACTIVE"})
		rec := &day2Record{Applied: shape{Nodes: 2, Version: "1.36", NodeVersion: "1.36"}}
		err := p.adoptRunningVersion(context.Background(), in, creds, "c2", rec)
		if sdk.KindOf(err) != sdk.KindFailedPrecondition || !strings.Contains(err.Error(), "EKS upgraded cluster c2 to Kubernetes 1.37 itself") {
			t.Errorf("got %v, want a FailedPrecondition saying EKS upgraded it to 1.37", err)
		}
	})
	t.Run("an older or unknown cluster leaves the record as it is", func(t *testing.T) {
		rec := &day2Record{Applied: shape{Nodes: 2, Version: "1.36", NodeVersion: "1.36"}}
		if err := p.adoptRunningVersion(context.Background(), in, creds, "gone", rec); err != nil || rec.Applied.Version != "1.36" {
			t.Errorf("unknown cluster: %+v, %v", rec.Applied, err)
		}
	})
}
