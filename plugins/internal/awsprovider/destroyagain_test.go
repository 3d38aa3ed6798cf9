package awsprovider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// blockedOnce stands in for a subnet that a Classic Load Balancer and an
// orphan network interface hold: its first destroy fails as AWS answers
// then; once the sweep removed them, the destroy run again succeeds.
const blockedOnce = `
resource "terraform_data" "subnet" {
  provisioner "local-exec" {
    when    = destroy
    command = "if [ ! -e MARK ]; then touch MARK; echo 'Error: deleting EC2 Subnet (subnet-0abc): DependencyViolation: The subnet has dependencies and cannot be deleted.' >&2; exit 1; fi"
  }
}
`

// A teardown whose terraform destroy fails on a DependencyViolation (a
// Classic Load Balancer the cloud controller made during the teardown,
// an interface left available) sweeps them at once and destroys once
// more: it completes, and nothing of the cluster is left.
func TestTeardownClearsWhatBlocksTheVPCAndDestroysAgain(t *testing.T) {
	w := newDay2World(t, "eks", func() *Provider { return EKS("t") }, map[string]string{"region": "eu-north-1",
		"credentialRef": "c", "apiAllowedCIDRs": "203.0.113.0/24", "nodeCount": "2"})
	src, err := os.ReadFile(filepath.Join(w.modules, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(t.TempDir(), "tried")
	if err := os.WriteFile(filepath.Join(w.modules, "main.tf"), append(src, strings.ReplaceAll(blockedOnce, "MARK", mark)...), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The extra resource is created first, so its destroy has something to do.
	op, err := w.p.Provision(ctx, sdk.ProvisionRequest{ClusterID: w.id + "-dv", Inputs: w.inputs, Credentials: w.creds})
	if err != nil {
		t.Fatal(err)
	}
	if st := w.follow(t, w.p, op.ID, sdk.Succeeded); st.State != sdk.Succeeded {
		t.Fatalf("provision: %+v", st)
	}
	name := "kubeopera-" + w.id + "-dv"
	dop, err := w.p.Destroy(ctx, sdk.DestroyRequest{ClusterID: w.id + "-dv", Inputs: w.inputs, Credentials: w.creds})
	if err != nil {
		t.Fatal(err)
	}
	// Made while the destroy runs, so only the sweep after it can find them.
	w.aws.EC2.AddVPC(fakeaws.VPC{ID: "vpc-dv", Tags: map[string]string{"Name": name}})
	w.aws.ELB.AddClassicLoadBalancer(fakeaws.ClassicLoadBalancer{Name: "a1b2c3", VPC: "vpc-dv",
		Tags: map[string]string{awsapi.ClusterTag(name): "owned"}})
	w.aws.EC2.AddNetworkInterface(fakeaws.NetworkInterface{ID: "eni-orphan", VPC: "vpc-dv", Subnet: "subnet-0abc", Status: "available"})

	st := w.follow(t, w.p, dop.ID, sdk.Succeeded)
	if st.State != sdk.Succeeded {
		t.Fatalf("teardown: %+v; want Succeeded after destroying again", st)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the first destroy never hit the DependencyViolation: %v", err)
	}
	if w.aws.ELB.ClassicExists("a1b2c3") || w.aws.EC2.NetworkResource("eni-orphan") {
		t.Error("the Classic Load Balancer or the orphan interface is still there")
	}
	for _, want := range []string{"classic load balancer a1b2c3", "network interface eni-orphan"} {
		if !strings.Contains(st.Message, want) {
			t.Errorf("final message %q does not name %q", st.Message, want)
		}
	}
}
