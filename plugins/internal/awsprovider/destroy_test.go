package awsprovider

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// managementCluster starts a sandbox API server with the terraform
// namespace, where the destroy keeps its record between passes.
func managementCluster(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Start(context.Background(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Stop() })
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: terraform.DefaultNamespace}}
	if _, err := sb.Client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return sb
}

// A freshly made sweepLog per pass: all a pass knows of the ones before
// comes from the management cluster, as after a plugin restart.
func restartedLog(t *testing.T, sb *sandbox.Sandbox) sweepLog {
	t.Helper()
	kube, err := terraform.NewKube(sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	return sweepLog{client: kube, namespace: terraform.DefaultNamespace}
}

// A finished terraform destroy sweeps what Kubernetes created: a deleted
// load balancer means another pass (its groups may only now be free). The
// final message names what every pass deleted, the relay's parameters
// once, and apart what AWS would not delete, though the plugin restarted
// between the passes.
func TestDestroyReportsEveryPassAndWhatItCouldNotDelete(t *testing.T) {
	aws := fakeAWS(t)
	sb := managementCluster(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	creds := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
	owned := map[string]string{awsapi.ClusterTag("kubeopera-c1"): "owned"}
	aws.EC2.AddVolume(fakeaws.Volume{ID: "vol-free", State: "available", Tags: owned})
	aws.EC2.AddVolume(fakeaws.Volume{ID: "vol-busy", State: "in-use", Instance: "i-0keep", Tags: owned})
	aws.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/ingress", Name: "ingress", Tags: owned})
	aws.SSM.Put("/kubeopera/c1/n0nce/members/0", "String", "ready")
	aws.SSM.Put("/kubeopera/c1/n0nce/members/1", "String", "joined")
	op := operation{Action: "destroy", ClusterID: "c1", Region: "eu-north-1", Relay: "/kubeopera/c1/n0nce"}
	done := sdk.OperationStatus{State: sdk.Succeeded, Progress: 100, Message: "destroyed"}
	ctx := context.Background()

	st, err := finishDestroy(ctx, creds, op, done, restartedLog(t, sb))
	if err != nil || st.State != sdk.Running || !strings.Contains(st.Message, "load balancer ingress") {
		t.Fatalf("first pass: %+v, %v; want Running after deleting the load balancer", st, err)
	}
	if _, err := sb.Client.CoreV1().ConfigMaps(terraform.DefaultNamespace).Get(ctx, "sweep-c1", metav1.GetOptions{}); err != nil {
		t.Fatalf("the first pass left no record for the next: %v", err)
	}
	// A security group the load balancer held until now.
	aws.EC2.AddSecurityGroup(fakeaws.SecurityGroup{ID: "sg-lb", Name: "k8s-elb-ingress", Tags: owned})
	st, err = finishDestroy(ctx, creds, op, done, restartedLog(t, sb))
	if err != nil || st.State != sdk.Succeeded {
		t.Fatalf("second pass: %+v, %v; want Succeeded", st, err)
	}
	deleted, notDeleted, _ := strings.Cut(st.Message, "NOT deleted")
	for _, want := range []string{"deleted 2 bootstrap parameters under /kubeopera/c1/n0nce", "volume vol-free",
		"load balancer ingress", "security group sg-lb"} {
		if !strings.Contains(deleted, want) {
			t.Errorf("final message %q does not report %q as deleted", st.Message, want)
		}
	}
	if strings.Count(st.Message, "bootstrap parameters") != 1 || strings.Contains(notDeleted, "vol-free") ||
		!strings.Contains(notDeleted, "volume vol-busy (in-use, attached to i-0keep)") {
		t.Errorf("final message %q: want the relay once and only the volume in use NOT deleted", st.Message)
	}
	if _, ok := aws.EC2.Volume("vol-free"); ok {
		t.Error("the available volume is still there")
	}
	if left := aws.SSM.Names("/kubeopera/c1/n0nce"); len(left) != 0 {
		t.Errorf("the relay parameters are still there: %v", left)
	}
	if _, err := sb.Client.CoreV1().ConfigMaps(terraform.DefaultNamespace).Get(ctx, "sweep-c1", metav1.GetOptions{}); err == nil {
		t.Error("the record outlived the destroy")
	}
}

// A record an earlier destroy of the same cluster ID left (it never
// finished) is not this one's: its deletions are not reported again.
func TestDestroyIgnoresAnotherOperationsRecord(t *testing.T) {
	aws := fakeAWS(t)
	sb := managementCluster(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	creds := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
	log := restartedLog(t, sb)
	old := operation{Action: "destroy", ClusterID: "c1", Region: "eu-north-1", Relay: "/kubeopera/c1/old"}
	ctx := context.Background()
	if err := log.save(ctx, old, sweepRecord{Operation: old.String(), RelayDone: true, RelayDeleted: 7, Deleted: []string{"volume vol-old"}}, nil); err != nil {
		t.Fatal(err)
	}
	aws.SSM.Put("/kubeopera/c1/new/members/0", "String", "ready")
	op := operation{Action: "destroy", ClusterID: "c1", Region: "eu-north-1", Relay: "/kubeopera/c1/new"}
	st, err := finishDestroy(ctx, creds, op, sdk.OperationStatus{State: sdk.Succeeded, Message: "destroyed"}, log)
	if err != nil || st.State != sdk.Succeeded || st.Message != "destroyed; deleted 1 bootstrap parameters under /kubeopera/c1/new" {
		t.Errorf("got %+v, %v", st, err)
	}
}

// A load balancer the cluster made in the public subnets would keep
// terraform destroy from deleting them: Destroy deletes it before
// terraform starts, and leaves the volumes (still attached) and security
// groups (still in use) to the sweep after. The final message still names
// the load balancer, deleted by the pass before.
func TestLoadBalancersAreSweptBeforeTerraformDestroy(t *testing.T) {
	aws := fakeAWS(t)
	sb := managementCluster(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	creds := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
	owned := map[string]string{awsapi.ClusterTag("kubeopera-c1"): "owned"}
	aws.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/ingress", Name: "ingress", Tags: owned})
	aws.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/other", Name: "other",
		Tags: map[string]string{awsapi.ClusterTag("kubeopera-c2"): "owned"}})
	aws.EC2.AddVolume(fakeaws.Volume{ID: "vol-free", State: "available", Tags: owned})
	aws.EC2.AddSecurityGroup(fakeaws.SecurityGroup{ID: "sg-lb", Name: "k8s-elb-ingress", Tags: owned})
	p := EKS("test")
	log := restartedLog(t, sb)
	p.sweepLogs.log = &log
	op := operation{Action: "destroy", ClusterID: "c1", Region: "eu-north-1"}
	ctx := context.Background()

	if err := p.sweepBeforeDestroy(ctx, creds, op, nil); err != nil {
		t.Fatal(err)
	}
	if aws.ELB.Exists("arn:lb/ingress") || !aws.ELB.Exists("arn:lb/other") {
		t.Errorf("before terraform: ingress exists %v (want deleted), other cluster's exists %v (want kept)",
			aws.ELB.Exists("arn:lb/ingress"), aws.ELB.Exists("arn:lb/other"))
	}
	if _, ok := aws.EC2.Volume("vol-free"); !ok {
		t.Error("the pass before terraform deleted a volume; volumes wait for the pass after")
	}
	if _, ok := aws.EC2.SecurityGroup("sg-lb"); !ok {
		t.Error("the pass before terraform deleted a security group; they wait for the pass after")
	}
	st, err := finishDestroy(ctx, creds, op, sdk.OperationStatus{State: sdk.Succeeded, Message: "destroyed"}, restartedLog(t, sb))
	if err != nil || st.State != sdk.Succeeded {
		t.Fatalf("after terraform: %+v, %v", st, err)
	}
	for _, want := range []string{"load balancer ingress", "volume vol-free", "security group sg-lb"} {
		if strings.Count(st.Message, want) != 1 {
			t.Errorf("final message %q names %q %d times, want once", st.Message, want, strings.Count(st.Message, want))
		}
	}
}

// An unreachable AWS stops Destroy before terraform starts, saying what
// failed, rather than starting a destroy the load balancer would block.
func TestDestroyStopsWhenTheSweepBeforeItFails(t *testing.T) {
	aws := fakeAWS(t)
	sb := managementCluster(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	creds := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
	t.Setenv("AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2", "http://127.0.0.1:1")
	p := EKS("test")
	log := restartedLog(t, sb)
	p.sweepLogs.log = &log
	err := p.sweepBeforeDestroy(context.Background(), creds, operation{Action: "destroy", ClusterID: "c1", Region: "eu-north-1"}, nil)
	if err == nil || !strings.Contains(err.Error(), "before terraform destroy") || !sdk.IsRetryable(err) {
		t.Errorf("got %v (retryable %v), want a retryable error saying the sweep before terraform destroy failed", err, sdk.IsRetryable(err))
	}
}
