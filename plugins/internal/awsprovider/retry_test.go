package awsprovider

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// A worker fails its bootstrap: the cluster is Failed; Retry replaces
// exactly that instance through its Auto Scaling group (the one still
// bootstrapping is left alone), clears its marker and restarts the
// deadline, and the cluster is Ready once the new instance joined.
func TestRetryReplacesExactlyTheWorkerThatFailed(t *testing.T) {
	aws := fakeaws.Start(t)
	for k, v := range map[string]string{"AWS_ENDPOINT_URL_SSM": aws.SSMURL, "AWS_ENDPOINT_URL_AUTO_SCALING": aws.ASGURL,
		"AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	cfg, err := awsapi.Config(context.Background(), sdk.Credentials{"kind": "access_key",
		"accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}, "eu-north-1")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	out := outputs(t, map[string]any{"ssm_prefix": "/kubeopera/c1/n0nce", "bootstrap_started_at": created.Format(time.RFC3339),
		"control_plane_instance_ids": []string{"i-0cp"}, "worker_autoscaling_group_name": "kubeopera-c1-workers"})
	now := created.Add(20 * time.Minute)
	v := vanilla{clock: func() time.Time { return now }}
	op := operation{Action: "apply", ClusterID: "c1", Region: "eu-north-1", ControlPlanes: 1, Workers: 3}
	aws.SSM.Put("/kubeopera/c1/n0nce/members/0", "String", "ready")
	aws.SSM.Put("/kubeopera/c1/n0nce/join/worker", "SecureString", "endpoint=10.0.1.10\ntoken=abcdef.0123456789abcdef\n")
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0ok", "String", "joined")
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0bad", "String", "failed: kubeadm-join: kubeadm join failed 3 times")
	aws.ASG.SetGroup("kubeopera-c1-workers", fakeaws.GroupInstance{ID: "i-0ok", State: fakeaws.InService},
		fakeaws.GroupInstance{ID: "i-0bad", State: fakeaws.InService}, fakeaws.GroupInstance{ID: "i-0slow", State: fakeaws.InService})
	settle := func(op operation) *sdk.OperationStatus {
		t.Helper()
		st, err := v.settle(context.Background(), cfg, op, out)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := settle(op); st == nil || st.State != sdk.Failed {
		t.Fatalf("a worker failed: %+v; want Failed", st)
	}

	now = created.Add(2 * settleTimeout) // the first deadline is long past
	retried, err := v.retry(context.Background(), cfg, op, out)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if got := aws.ASG.Terminated(); !slices.Equal(got, []string{"i-0bad"}) {
		t.Fatalf("instances replaced: %v, want exactly i-0bad", got)
	}
	if _, ok := aws.SSM.Get("/kubeopera/c1/n0nce/workers/i-0bad"); ok {
		t.Error("the failed worker's marker is still there")
	}
	again, err := parseOperation(retried.String())
	if err != nil || !again.Started.Equal(now) {
		t.Fatalf("retried operation %q carries since %v (%v), want the retry's time %v", retried.String(), again.Started, err, now)
	}
	if st := settle(again); st == nil || st.State != sdk.Running || !strings.Contains(st.Message, "1 of 3 workers joined") {
		t.Fatalf("after the retry: %+v; want running again (deadline restarted), 1 of 3 joined", st)
	}
	// The retry kept the relay: member 0's marker and the join data the
	// replacement reads are where they were.
	for _, name := range []string{"/kubeopera/c1/n0nce/members/0", "/kubeopera/c1/n0nce/join/worker"} {
		if _, ok := aws.SSM.Get(name); !ok {
			t.Errorf("the retry removed %s, which the replacement joins with", name)
		}
	}
	// The same retry asked again (the host lost the first answer): the
	// recorded time restarts the deadline for it too, so it is the same
	// operation and replaces nothing more.
	now = now.Add(time.Minute)
	resumed, err := v.resume(context.Background(), cfg, op, out)
	if err != nil || resumed.String() != retried.String() {
		t.Fatalf("Provision asked again after the retry resumes %q (%v), want the retry's %q", resumed.String(), err, retried.String())
	}
	if st := settle(resumed); st == nil || st.State != sdk.Running {
		t.Fatalf("the retry asked again: %+v; want still running, not a second failure to replace", st)
	}
	for _, i := range aws.ASG.Group("kubeopera-c1-workers") {
		if i.ID != "i-0ok" {
			aws.SSM.Put("/kubeopera/c1/n0nce/workers/"+i.ID, "String", "joined")
		}
	}
	if st := settle(again); st != nil {
		t.Fatalf("the replacement and the slow worker joined: %+v; want done (Ready)", st)
	}
}

// A control plane that failed cannot be retried in place: the refusal
// says to tear the cluster down and create it again, and nothing is
// replaced.
func TestRetryRefusesAFailedControlPlane(t *testing.T) {
	aws := fakeaws.Start(t)
	for k, v := range map[string]string{"AWS_ENDPOINT_URL_SSM": aws.SSMURL, "AWS_ENDPOINT_URL_AUTO_SCALING": aws.ASGURL,
		"AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	cfg, err := awsapi.Config(context.Background(), sdk.Credentials{"kind": "access_key",
		"accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}, "eu-north-1")
	if err != nil {
		t.Fatal(err)
	}
	out := outputs(t, map[string]any{"ssm_prefix": "/kubeopera/c1/n0nce", "worker_autoscaling_group_name": "kubeopera-c1-workers"})
	aws.SSM.Put("/kubeopera/c1/n0nce/members/0", "String", "ready")
	aws.SSM.Put("/kubeopera/c1/n0nce/members/1", "String", "failed: kubeadm-join: etcd member add timed out")
	aws.ASG.SetGroup("kubeopera-c1-workers", fakeaws.GroupInstance{ID: "i-0w", State: fakeaws.InService})
	_, err = vanilla{}.retry(context.Background(), cfg, operation{Action: "apply", ClusterID: "c1", ControlPlanes: 3, Workers: 1}, out)
	if sdk.KindOf(err) != sdk.KindFailedPrecondition || !strings.Contains(err.Error(), "control plane 2 of 3") || !strings.Contains(err.Error(), recreate) {
		t.Fatalf("retry with control plane 2 failed: %v; want a FailedPrecondition naming it and saying %q", err, recreate)
	}
	if got := aws.ASG.Terminated(); len(got) != 0 {
		t.Errorf("instances replaced: %v, want none", got)
	}
}

// A retry whose termination AWS refuses (a policy without
// autoscaling:TerminateInstanceInAutoScalingGroup) says so and restarts
// nothing: no retry is recorded and the failed marker stays, so the
// retry asked again once the policy allows it replaces the worker at once
// instead of waiting out a deadline restarted with nothing replaced.
func TestRetryRefusedByAWSRecordsNothing(t *testing.T) {
	aws := fakeaws.Start(t)
	for k, v := range map[string]string{"AWS_ENDPOINT_URL_SSM": aws.SSMURL, "AWS_ENDPOINT_URL_AUTO_SCALING": aws.ASGURL,
		"AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	cfg, err := awsapi.Config(context.Background(), sdk.Credentials{"kind": "access_key",
		"accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}, "eu-north-1")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	out := outputs(t, map[string]any{"ssm_prefix": "/kubeopera/c1/n0nce", "bootstrap_started_at": created.Format(time.RFC3339),
		"worker_autoscaling_group_name": "kubeopera-c1-workers"})
	v := vanilla{clock: func() time.Time { return created.Add(2 * settleTimeout) }}
	op := operation{Action: "apply", ClusterID: "c1", Region: "eu-north-1", ControlPlanes: 1, Workers: 1}
	aws.SSM.Put("/kubeopera/c1/n0nce/members/0", "String", "ready")
	aws.SSM.Put("/kubeopera/c1/n0nce/workers/i-0bad", "String", "failed: kubeadm-join: kubeadm join failed 3 times")
	aws.ASG.SetGroup("kubeopera-c1-workers", fakeaws.GroupInstance{ID: "i-0bad", State: fakeaws.InService})
	aws.IAM.Deny("autoscaling:TerminateInstanceInAutoScalingGroup")

	if _, err := v.retry(context.Background(), cfg, op, out); err == nil || !strings.Contains(err.Error(), "AccessDenied") {
		t.Fatalf("retry with the termination refused: %v; want AWS's AccessDenied", err)
	}
	if value, ok := aws.SSM.Get("/kubeopera/c1/n0nce/retried"); ok {
		t.Errorf("a retry that replaced nothing recorded %q", value.Value)
	}
	if _, ok := aws.SSM.Get("/kubeopera/c1/n0nce/workers/i-0bad"); !ok {
		t.Error("a retry that replaced nothing deleted the failed worker's marker")
	}
	if resumed, err := v.resume(context.Background(), cfg, op, out); err != nil || !resumed.Started.IsZero() {
		t.Fatalf("resume after the refused retry: %+v, %v; want no restarted deadline", resumed, err)
	}
	if st, err := v.settle(context.Background(), cfg, op, out); err != nil || st == nil || st.State != sdk.Failed {
		t.Fatalf("after the refused retry: %+v, %v; want still Failed, for the next retry to replace the worker", st, err)
	}
}
