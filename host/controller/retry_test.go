package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// A Failed provisioning stays Failed until a retry is asked for; the
// controller takes the request up once, calls the plugin's Provision again
// for the same cluster, and the cluster goes on from there. The same
// request seen again (a resync) starts nothing more.
func TestRetryOfAFailedProvisioningCallsProvisionOnceMore(t *testing.T) {
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	e := newEnv(t, 1, target.Kubeconfig)
	e.credential("cred-1")
	if err := e.c.Create(ctx, provisioned("doomed-r")); err != nil {
		t.Fatal(err)
	}
	e.waitPhase("doomed-r", v1.PhaseFailed, 20*time.Second)
	calls := func() int {
		b, _ := os.ReadFile(filepath.Join(os.Getenv("TESTCLOUD_STATE"), "provision-doomed-r"))
		return strings.Count(string(b), "\n")
	}
	time.Sleep(time.Second) // resyncs of a Failed cluster start nothing
	if n := calls(); n != 1 {
		t.Fatalf("Provision called %d times before the retry, want 1", n)
	}

	// The user fixed what failed (the quota), then asks for a retry.
	if err := os.WriteFile(filepath.Join(os.Getenv("TESTCLOUD_STATE"), "fixed-doomed-r"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.setAnnotation("doomed-r", v1.RetryAnnotation, "2026-12-01T21:00:00Z")
	hc := e.trace("doomed-r", 30*time.Second, func(hc *v1.HostCluster) bool {
		return meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionProvisioned)
	})
	if hc.Status.Retried != "2026-12-01T21:00:00Z" || hc.Status.Phase == v1.PhaseFailed ||
		meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionStalled) {
		t.Errorf("after the retry: retried %q, phase %s, conditions %+v", hc.Status.Retried, hc.Status.Phase, hc.Status.Conditions)
	}
	if hc.Annotations[OperationAnnotation] != "op-doomed-r" {
		t.Errorf("operation annotation %q, want the new Provision's", hc.Annotations[OperationAnnotation])
	}
	time.Sleep(time.Second) // later reconciles see the request taken up
	if n := calls(); n != 2 {
		t.Errorf("Provision called %d times in all, want 2 (once more for the one retry)", n)
	}
}
