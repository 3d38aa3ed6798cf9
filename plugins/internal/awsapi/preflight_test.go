package awsapi

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
)

func TestInstanceTypeZoneIDsAgainstTheEC2Endpoint(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	cfg := newConfig(t, accessKey(s.IAM.AddUser(account, "alice")))
	ctx := context.Background()
	s.EC2.SetOfferings("m7g.large", "eun1-az2")
	for typ, want := range map[string]string{"t3.medium": "[eun1-az1 eun1-az2 eun1-az3]", "m7g.large": "[eun1-az2]", "t9.huge": "[]"} {
		got, err := InstanceTypeZoneIDs(ctx, cfg, typ)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("InstanceTypeZoneIDs(%s) = %v, %v; want %s", typ, got, err, want)
		}
	}
	s.IAM.Deny("ec2:DescribeInstanceTypeOfferings")
	_, err := InstanceTypeZoneIDs(ctx, cfg, "t3.medium")
	assertInvalidInput(t, err, "credentials")
}

func TestAddonVersionsAgainstTheEKSEndpoint(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	cfg := newConfig(t, accessKey(s.IAM.AddUser(account, "alice")))
	ctx := context.Background()
	s.EKS.SetAddonVersions(
		fakeaws.AddonVersion{Addon: "aws-ebs-csi-driver", Version: "v1.64.0-eksbuild.1", Minors: []string{"1.36", "1.35"}},
		fakeaws.AddonVersion{Addon: "aws-ebs-csi-driver", Version: "v1.50.0-eksbuild.2", Minors: []string{"1.35"}},
		fakeaws.AddonVersion{Addon: "coredns", Version: "v1.12.0-eksbuild.1", Minors: []string{"1.36", "1.35"}})
	got, err := AddonVersions(ctx, cfg, "aws-ebs-csi-driver", "1.36")
	if err != nil || fmt.Sprint(got) != "[v1.64.0-eksbuild.1]" {
		t.Errorf("1.36: %v, %v", got, err)
	}
	if got, err := AddonVersions(ctx, cfg, "aws-ebs-csi-driver", "1.35"); err != nil || len(got) != 2 {
		t.Errorf("1.35: %v, %v; want both builds", got, err)
	}
	s.IAM.Deny("eks:DescribeAddonVersions")
	_, err = AddonVersions(ctx, cfg, "aws-ebs-csi-driver", "1.36")
	var d *DeniedError
	if !errors.As(err, &d) || d.Action != "eks:DescribeAddonVersions" || d.Code != "AccessDeniedException" {
		t.Errorf("denied: %v, want a DeniedError naming eks:DescribeAddonVersions", err)
	}
	s.IAM.Deny("eks:DescribeClusterVersions")
	if _, err := ClusterVersionStatus(ctx, cfg, "1.36"); !errors.As(err, &d) || d.Action != "eks:DescribeClusterVersions" {
		t.Errorf("ClusterVersionStatus denied: %v, want a DeniedError", err)
	}
}

// The real Service Quotas client against the JSON 1.1 stand-in.
func TestVCPUQuotaAgainstTheServiceQuotasEndpoint(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	alice := s.IAM.AddUser(account, "alice")
	cfg := newConfig(t, accessKey(alice))
	ctx := context.Background()
	if q, err := VCPUQuota(ctx, cfg); err != nil || q != 32 {
		t.Errorf("a new account's quota = %v, %v; want 32", q, err)
	}
	s.SQ.SetQuota("ec2", fakeaws.OnDemandStandardVCPUs, 5)
	if q, err := VCPUQuota(ctx, cfg); err != nil || q != 5 {
		t.Errorf("after a change: %v, %v; want 5", q, err)
	}
	if _, err := VCPUQuota(ctx, newConfig(t, accessKey(assumed(t, s, alice)))); err != nil {
		t.Errorf("with an assumed role's keys: %v", err)
	}
	s.IAM.Deny("servicequotas:GetServiceQuota")
	_, err := VCPUQuota(ctx, cfg)
	var d *DeniedError
	if !errors.As(err, &d) || d.Action != "servicequotas:GetServiceQuota" {
		t.Errorf("denied: %v, want a DeniedError naming servicequotas:GetServiceQuota", err)
	}
	if n := s.SQ.Calls(); n != 3 {
		t.Errorf("Service Quotas answered %d calls, want 3 (the denied one refused)", n)
	}
}
