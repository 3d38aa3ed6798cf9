package awsapi

import (
	"context"
	"slices"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
)

// What keeps terraform from deleting a cluster's VPC and was not made by
// it goes: a Classic Load Balancer the cloud controller made (tagged, or
// in the VPC), an interface left available in the VPC, a VPC endpoint
// added there. Another cluster's, and an interface still in use, stay.
func TestSweepBlockersClearsWhatHoldsTheVPC(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	const name = "kubeopera-c1"
	s.EC2.AddVPC(fakeaws.VPC{ID: "vpc-c1", Tags: map[string]string{"Name": name}})
	s.EC2.AddVPC(fakeaws.VPC{ID: "vpc-c2", Tags: map[string]string{"Name": "kubeopera-c2"}})
	s.ELB.AddClassicLoadBalancer(fakeaws.ClassicLoadBalancer{Name: "a1b2tagged", VPC: "vpc-c1", Tags: map[string]string{ClusterTag(name): "owned"}})
	s.ELB.AddClassicLoadBalancer(fakeaws.ClassicLoadBalancer{Name: "untagged-in-vpc", VPC: "vpc-c1"})
	s.ELB.AddClassicLoadBalancer(fakeaws.ClassicLoadBalancer{Name: "other", VPC: "vpc-c2", Tags: map[string]string{ClusterTag("kubeopera-c2"): "owned"}})
	s.EC2.AddNetworkInterface(fakeaws.NetworkInterface{ID: "eni-orphan", VPC: "vpc-c1", Subnet: "subnet-a", Status: "available"})
	s.EC2.AddNetworkInterface(fakeaws.NetworkInterface{ID: "eni-busy", VPC: "vpc-c1", Subnet: "subnet-a", Status: "in-use"})
	s.EC2.AddNetworkInterface(fakeaws.NetworkInterface{ID: "eni-other", VPC: "vpc-c2", Subnet: "subnet-z", Status: "available"})
	s.EC2.AddVPCEndpoint(fakeaws.VPCEndpoint{ID: "vpce-s3", VPC: "vpc-c1", Service: "com.amazonaws.eu-north-1.s3"})
	s.EC2.AddVPCEndpoint(fakeaws.VPCEndpoint{ID: "vpce-other", VPC: "vpc-c2", Service: "com.amazonaws.eu-north-1.s3"})

	res, err := SweepBlockers(context.Background(), newConfig(t, accessKey(s.IAM.AddUser(account, "kubeopera"))), name)
	if err != nil {
		t.Fatal(err)
	}
	for lb, want := range map[string]bool{"a1b2tagged": false, "untagged-in-vpc": false, "other": true} {
		if got := s.ELB.ClassicExists(lb); got != want {
			t.Errorf("classic load balancer %s exists = %v, want %v", lb, got, want)
		}
	}
	for id, want := range map[string]bool{"eni-orphan": false, "eni-busy": true, "eni-other": true, "vpce-s3": false, "vpce-other": true} {
		if got := s.EC2.NetworkResource(id); got != want {
			t.Errorf("%s exists = %v, want %v", id, got, want)
		}
	}
	want := []string{"classic load balancer a1b2tagged", "classic load balancer untagged-in-vpc", "VPC endpoint vpce-s3", "network interface eni-orphan"}
	if !slices.Equal(res.Deleted, want) || !res.LoadBalancersDeleted {
		t.Errorf("deleted %q (load balancers: %v), want %q", res.Deleted, res.LoadBalancersDeleted, want)
	}
}
