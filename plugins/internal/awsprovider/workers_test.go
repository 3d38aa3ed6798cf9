package awsprovider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// A cluster is done when its control planes are up and its requested
// workers joined; a worker's failure fails it with what that worker said,
// and workers missing past the deadline fail it too.
func TestVanillaSettleWaitsForTheRequestedWorkers(t *testing.T) {
	aws := fakeaws.Start(t)
	t.Setenv("AWS_ENDPOINT_URL_SSM", aws.SSMURL)
	t.Setenv("AWS_ENDPOINT_URL_AUTO_SCALING", aws.ASGURL)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	aws.ASG.SetGroup("kubeopera-c1-workers", fakeaws.GroupInstance{ID: "i-0w1", State: fakeaws.InService},
		fakeaws.GroupInstance{ID: "i-0w2", State: fakeaws.InService})
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	cfg, err := awsapi.Config(context.Background(), sdk.Credentials{"kind": "access_key",
		"accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}, "eu-north-1")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	out := outputs(t, map[string]any{"ssm_prefix": "/kubeopera/c1/n0nce", "bootstrap_started_at": created.Format(time.RFC3339),
		"control_plane_instance_ids": []string{"i-0abc"}, "worker_autoscaling_group_name": "kubeopera-c1-workers"})
	op := operation{ClusterID: "c1", ControlPlanes: 1, Workers: 2}
	now := created.Add(10 * time.Minute)
	v := vanilla{clock: func() time.Time { return now }}
	settle := func() *sdk.OperationStatus {
		t.Helper()
		st, err := v.settle(context.Background(), cfg, op, out)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	aws.SSM.Put("/kubeopera/c1/n0nce/members/0", "String", "ready")
	if st := settle(); st == nil || st.State != sdk.Running || !strings.Contains(st.Message, "0 of 2 workers joined") {
		t.Fatalf("control plane ready, no worker yet: %+v; want running, 0 of 2 workers joined", st)
	}
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0w1", "String", "joined")
	// Another provision's worker of the same cluster does not count.
	aws.SSM.Put("/kubeopera/c1/old/workers/i-0old", "String", "joined")
	if st := settle(); st == nil || st.State != sdk.Running || !strings.Contains(st.Message, "1 of 2 workers joined") {
		t.Fatalf("one worker joined: %+v; want running, 1 of 2", st)
	}
	now = created.Add(settleTimeout + time.Minute)
	if st := settle(); st == nil || st.State != sdk.Failed || !strings.Contains(st.Message, "1 of 2 workers joined") ||
		!strings.Contains(st.Message, "kubeopera-c1-workers") {
		t.Fatalf("past the deadline with a worker missing: %+v; want failed naming the Auto Scaling Group", st)
	}
	now = created.Add(10 * time.Minute)
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0w2", "String", "failed: kubeadm-join: kubeadm join failed 3 times")
	if st := settle(); st == nil || st.State != sdk.Failed || st.ErrorClass != sdk.UserFixable ||
		!strings.Contains(st.Message, "worker i-0w2 failed its bootstrap at step kubeadm-join: kubeadm join failed 3 times") {
		t.Fatalf("a worker failed: %+v; want failed with what it said, for a person to retry (UserFixable: a retry replaces billed instances)", st)
	}
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0w2", "String", "joined")
	if st := settle(); st != nil {
		t.Fatalf("both workers joined: %+v; want done", st)
	}
}

// After a scale-in or a replacement, the markers of instances no longer
// in the workers' group neither count nor fail the next change, and are
// deleted; a Pending instance's marker waits until it is InService.
func TestWorkerMarkersCountOnlyForInstancesInServiceInTheGroup(t *testing.T) {
	aws := fakeaws.Start(t)
	t.Setenv("AWS_ENDPOINT_URL_SSM", aws.SSMURL)
	t.Setenv("AWS_ENDPOINT_URL_AUTO_SCALING", aws.ASGURL)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	cfg, err := awsapi.Config(context.Background(), sdk.Credentials{"kind": "access_key",
		"accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}, "eu-north-1")
	if err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	out := outputs(t, map[string]any{"ssm_prefix": "/kubeopera/c1/n0nce", "worker_autoscaling_group_name": "kubeopera-c1-workers"})
	v := vanilla{clock: func() time.Time { return started.Add(time.Minute) }}
	op := operation{ClusterID: "c1", ControlPlanes: 1, Workers: 2, Started: started}
	aws.SSM.Put("/kubeopera/c1/n0nce/members/0", "String", "ready")
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0kept", "String", "joined")
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0scaledin", "String", "joined")
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0dead", "String", "failed: kubeadm-join: kubeadm join failed 3 times")
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0leaving", "String", "joined")
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0new", "String", "joined")
	aws.ASG.SetGroup("kubeopera-c1-workers", fakeaws.GroupInstance{ID: "i-0kept", State: fakeaws.InService},
		fakeaws.GroupInstance{ID: "i-0leaving", State: fakeaws.Terminating}, fakeaws.GroupInstance{ID: "i-0new", State: fakeaws.Pending})

	st, err := v.settle(context.Background(), cfg, op, out)
	if err != nil {
		t.Fatal(err)
	}
	if st == nil || st.State != sdk.Running || !strings.Contains(st.Message, "1 of 2 workers joined") {
		t.Fatalf("one worker InService, one Pending, three gone: %+v; want running, 1 of 2 joined", st)
	}
	for name, want := range map[string]bool{"i-0kept": true, "i-0new": true, "i-0scaledin": false, "i-0dead": false, "i-0leaving": false} {
		if _, ok := aws.SSM.Get("/kubeopera/c1/n0nce/workers/" + name); ok != want {
			t.Errorf("marker of %s there = %v, want %v", name, ok, want)
		}
	}
	aws.ASG.SetGroup("kubeopera-c1-workers", fakeaws.GroupInstance{ID: "i-0kept", State: fakeaws.InService},
		fakeaws.GroupInstance{ID: "i-0new", State: fakeaws.InService})
	if st, err := v.settle(context.Background(), cfg, op, out); err != nil || st != nil {
		t.Fatalf("both InService and joined: %+v, %v; want done", st, err)
	}
}

func TestOperationCarriesTheWorkerCount(t *testing.T) {
	op := operation{Action: "apply", ClusterID: "c1", Region: "eu-north-1", ControlPlanes: 3, Workers: 2}
	got, err := parseOperation(op.String())
	if err != nil || got != op {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
}
