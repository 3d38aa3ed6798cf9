package awsapi

import (
	"context"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
)

// After terraform destroy, what the cluster's controllers created and
// tagged as its own goes too; another cluster's, an untagged one and one
// still in use stay, the last reported by name.
func TestSweepDeletesOnlyTheClustersLeftovers(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	const name = "kubeopera-c1"
	owned := map[string]string{ClusterTag(name): "owned"}
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-owned", State: "available", Tags: owned})
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-driver", State: "available", Tags: map[string]string{"KubernetesCluster": name, "ebs.csi.aws.com/cluster": "true"}})
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-addon", State: "available", Tags: map[string]string{VolumeTag: name, "ebs.csi.aws.com/cluster": "true"}})
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-addon-other", State: "available", Tags: map[string]string{VolumeTag: "kubeopera-c2"}})
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-attached", State: "in-use", Instance: "i-0keep", Tags: owned})
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-untagged", State: "available"})
	// Every EBS driver tags its volumes ebs.csi.aws.com/cluster = true:
	// that says nothing of which cluster.
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-any-driver", State: "available", Tags: map[string]string{"ebs.csi.aws.com/cluster": "true"}})
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-other", State: "available", Tags: map[string]string{ClusterTag("kubeopera-c2"): "owned"}})
	s.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/ingress", Name: "a1b2-ingress", Tags: owned})
	s.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/other", Name: "other", Tags: map[string]string{ClusterTag("kubeopera-c2"): "owned"}})
	s.ELB.AddTargetGroup(fakeaws.TargetGroup{ARN: "arn:tg/ingress", Name: "k8s-ingress-80", Tags: owned, LoadBalancers: []string{"arn:lb/ingress"}})
	s.ELB.AddTargetGroup(fakeaws.TargetGroup{ARN: "arn:tg/other", Name: "other-80", LoadBalancers: []string{"arn:lb/other"}})
	s.EC2.AddSecurityGroup(fakeaws.SecurityGroup{ID: "sg-lb", Name: "k8s-elb-a1b2", Tags: owned})
	s.EC2.AddSecurityGroup(fakeaws.SecurityGroup{ID: "sg-busy", Name: "k8s-busy", Tags: owned, InUse: true})
	s.EC2.AddSecurityGroup(fakeaws.SecurityGroup{ID: "sg-other", Name: "other", Tags: map[string]string{ClusterTag("kubeopera-c2"): "owned"}})

	cfg := newConfig(t, accessKey(s.IAM.AddUser(account, "kubeopera")))
	res, err := Sweep(context.Background(), cfg, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"vol-owned", "vol-driver", "vol-addon"} {
		if _, ok := s.EC2.Volume(id); ok {
			t.Errorf("%s is still there", id)
		}
	}
	for _, id := range []string{"vol-attached", "vol-untagged", "vol-any-driver", "vol-other", "vol-addon-other"} {
		if _, ok := s.EC2.Volume(id); !ok {
			t.Errorf("%s was deleted", id)
		}
	}
	if s.ELB.Exists("arn:lb/ingress") || s.ELB.Exists("arn:tg/ingress") || !s.ELB.Exists("arn:lb/other") || !s.ELB.Exists("arn:tg/other") {
		t.Error("want the cluster's load balancer and target group deleted and the other cluster's kept")
	}
	if _, ok := s.EC2.SecurityGroup("sg-lb"); ok {
		t.Error("sg-lb is still there")
	}
	if _, ok := s.EC2.SecurityGroup("sg-other"); !ok {
		t.Error("another cluster's security group was deleted")
	}
	var left []string
	for _, l := range res.Left {
		left = append(left, l.String())
	}
	want := "volume vol-attached (in-use, attached to i-0keep),security group sg-busy k8s-busy (DependencyViolation)"
	if strings.Join(left, ",") != want {
		t.Errorf("left = %q, want %q", left, want)
	}
	if !res.LoadBalancersDeleted || len(res.Deleted) != 6 {
		t.Errorf("deleted %q (load balancers: %v), want 3 volumes, a load balancer, a target group, a security group", res.Deleted, res.LoadBalancersDeleted)
	}

	// A second sweep finds nothing more to delete.
	res, err = Sweep(context.Background(), cfg, name)
	if err != nil || len(res.Deleted) != 0 || res.LoadBalancersDeleted || len(res.Left) != 2 {
		t.Errorf("second sweep: %+v, %v", res, err)
	}
}

// A refused credential ends the sweep with an error naming the call and
// what to fix; it is not reported as a leftover.
func TestSweepRefusedCredentialIsAnError(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	p := s.IAM.AddUser(account, "kubeopera")
	p.SecretAccessKey = strings.Repeat("x", 40)
	_, err := Sweep(context.Background(), newConfig(t, accessKey(p)), "kubeopera-c1")
	if err == nil || !strings.Contains(err.Error(), "ec2:DescribeVolumes") {
		t.Fatalf("error %v, want one naming ec2:DescribeVolumes", err)
	}
	assertNoSecret(t, err.Error(), p)
}

// ELBv2 lists at most 400 a page: a cluster's load balancer and target
// group on a later page are found and deleted too.
func TestSweepReadsEveryPageOfLoadBalancers(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	s.ELB.PageSize = 1
	const name = "kubeopera-c1"
	for _, other := range []string{"a", "b"} {
		s.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/" + other, Name: other})
		s.ELB.AddTargetGroup(fakeaws.TargetGroup{ARN: "arn:tg/" + other, Name: other})
	}
	owned := map[string]string{ClusterTag(name): "owned"}
	s.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/z-ingress", Name: "z-ingress", Tags: owned})
	s.ELB.AddTargetGroup(fakeaws.TargetGroup{ARN: "arn:tg/z-ingress", Name: "z-ingress-80", Tags: owned,
		LoadBalancers: []string{"arn:lb/z-ingress"}})

	res, err := Sweep(context.Background(), newConfig(t, accessKey(s.IAM.AddUser(account, "kubeopera"))), name)
	if err != nil {
		t.Fatal(err)
	}
	if s.ELB.Exists("arn:lb/z-ingress") || s.ELB.Exists("arn:tg/z-ingress") {
		t.Errorf("the cluster's load balancer or target group on the last page is still there (deleted: %v)", res.Deleted)
	}
	for _, arn := range []string{"arn:lb/a", "arn:lb/b", "arn:tg/a", "arn:tg/b"} {
		if !s.ELB.Exists(arn) {
			t.Errorf("%s, not the cluster's, was deleted", arn)
		}
	}
}

// EC2 answers a paginated Describe (MaxResults, 5 to 1000) a page at a
// time: the cluster's volumes and security groups past the first page are
// found and deleted too, by either tag spelling.
func TestSweepReadsEveryPageOfVolumesAndSecurityGroups(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	s.EC2.SetPageSize(1)
	const name = "kubeopera-c1"
	owned := map[string]string{ClusterTag(name): "owned"}
	for _, id := range []string{"a", "b", "z"} {
		s.EC2.AddVolume(fakeaws.Volume{ID: "vol-" + id, State: "available", Tags: owned})
		s.EC2.AddSecurityGroup(fakeaws.SecurityGroup{ID: "sg-" + id, Name: "k8s-elb-" + id, Tags: owned})
	}
	for _, id := range []string{"vol-driver-a", "vol-driver-z"} {
		s.EC2.AddVolume(fakeaws.Volume{ID: id, State: "available", Tags: map[string]string{"KubernetesCluster": name}})
	}
	s.EC2.AddVolume(fakeaws.Volume{ID: "vol-other", State: "available", Tags: map[string]string{ClusterTag("kubeopera-c2"): "owned"}})
	s.EC2.AddSecurityGroup(fakeaws.SecurityGroup{ID: "sg-other", Name: "other", Tags: map[string]string{ClusterTag("kubeopera-c2"): "owned"}})

	res, err := Sweep(context.Background(), newConfig(t, accessKey(s.IAM.AddUser(account, "kubeopera"))), name)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"vol-a", "vol-b", "vol-z", "vol-driver-a", "vol-driver-z"} {
		if _, ok := s.EC2.Volume(id); ok {
			t.Errorf("%s is still there (deleted: %v)", id, res.Deleted)
		}
	}
	for _, id := range []string{"sg-a", "sg-b", "sg-z"} {
		if _, ok := s.EC2.SecurityGroup(id); ok {
			t.Errorf("%s is still there (deleted: %v)", id, res.Deleted)
		}
	}
	if _, ok := s.EC2.Volume("vol-other"); !ok {
		t.Error("another cluster's volume was deleted")
	}
	if _, ok := s.EC2.SecurityGroup("sg-other"); !ok {
		t.Error("another cluster's security group was deleted")
	}
	// A page of one: three pages for the first tag, two for the second,
	// an empty one for the add-on's tag, three for the groups.
	if v, g := s.EC2.CallsOf("DescribeVolumes"), s.EC2.CallsOf("DescribeSecurityGroups"); v != 6 || g != 3 {
		t.Errorf("%d DescribeVolumes and %d DescribeSecurityGroups pages read, want 6 and 3", v, g)
	}
}
