package awsprovider

import (
	"context"
	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// The preflight against the AWS stand-ins: each rule refuses what it
// should, with the field and a message saying what to change, and a call
// the credential may not make skips its check instead of failing Validate.
func TestPreflightAsksAWSAndSaysWhatToChange(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p       *Provider
		inputs  map[string]string
		arrange func(*fakeaws.Server)
		field   string // "" for no error
		want    string
	}{
		{"eks defaults", EKS("t"), nil, nil, "", ""},
		{"vanilla three control planes", Vanilla("t"), map[string]string{"controlPlaneCount": "3"}, nil, "", ""},
		{"type offered in one zone only", EKS("t"), map[string]string{"instanceType": "m6i.large"},
			func(s *fakeaws.Server) { s.EC2.SetOfferings("m6i.large", "eun1-az1") },
			"inputs.instanceType", "offers m6i.large in 1 availability zone(s) of eu-north-1 (eun1-az1); the cluster spreads over 2"},
		{"EKS does not count a zone it refuses", EKS("t"), nil,
			func(s *fakeaws.Server) { s.EC2.SetOfferings("t3.medium", "use1-az3", "use1-az1") },
			"inputs.instanceType", "in 1 availability zone(s)"},
		{"over the vCPU quota", EKS("t"), map[string]string{"nodeCount": "3"},
			func(s *fakeaws.Server) { s.SQ.SetQuota("ec2", fakeaws.OnDemandStandardVCPUs, 5) },
			"inputs.nodeCount", "needs 6 vCPUs of on-demand standard instances (3 × t3.medium, 2 vCPUs each), above the account's quota of 5"},
		{"control planes count against the quota", Vanilla("t"), map[string]string{"controlPlaneCount": "3", "nodeCount": "2"},
			func(s *fakeaws.Server) { s.SQ.SetQuota("ec2", fakeaws.OnDemandStandardVCPUs, 8) },
			"inputs.nodeCount", "needs 10 vCPUs"},
		{"quota check skipped when denied", EKS("t"), map[string]string{"nodeCount": "3"},
			func(s *fakeaws.Server) {
				s.SQ.SetQuota("ec2", fakeaws.OnDemandStandardVCPUs, 1)
				s.IAM.Deny("servicequotas:GetServiceQuota")
			}, "", ""},
		{"pinned EBS add-on not offered for the version", EKS("t"), map[string]string{"kubernetesVersion": "1.36"},
			func(s *fakeaws.Server) {
				s.EKS.SetAddonVersions(fakeaws.AddonVersion{Addon: "aws-ebs-csi-driver", Version: upstream.EBSCSIAddon.Version, Minors: []string{"1.35"}})
			}, "inputs.kubernetesVersion", "offers no aws-ebs-csi-driver add-on " + upstream.EBSCSIAddon.Version + " for Kubernetes 1.36 (it offers none)"},
		{"add-on schema without the key the plugin renders: refused before any apply, naming the key and the keys allowed", EKS("t"), nil,
			func(s *fakeaws.Server) {
				s.EKS.SetAddonSchema("aws-ebs-csi-driver", []byte(`{"type":"object","additionalProperties":false,"properties":{
					"controller":{"type":"object","additionalProperties":false,"properties":{"tolerations":{"type":"array"}}}}}`))
			}, "inputs.kubernetesVersion", "controller.extraVolumeTags: is not a key the add-on accepts; the add-on's schema allows only: tolerations"},
		{"pinned kube-proxy add-on not offered for the version", EKS("t"), map[string]string{"kubernetesVersion": "1.36"},
			func(s *fakeaws.Server) {
				var offered []fakeaws.AddonVersion
				for _, a := range fakeaws.DefaultAddonVersions {
					if a.Addon != "kube-proxy" {
						offered = append(offered, a)
					}
				}
				s.EKS.SetAddonVersions(append(offered, fakeaws.AddonVersion{Addon: "kube-proxy", Version: "v1.36.0-eksbuild.9", Minors: []string{"1.36"}})...)
			}, "inputs.kubernetesVersion", "offers no kube-proxy add-on v1.36.0-eksbuild.1 for Kubernetes 1.36 (it offers v1.36.0-eksbuild.9)"},
		{"add-on schema check skipped when denied", EKS("t"), nil,
			func(s *fakeaws.Server) {
				s.EKS.SetAddonSchema("aws-ebs-csi-driver", []byte(`{"type":"object","additionalProperties":false}`))
				s.IAM.Deny("eks:DescribeAddonConfiguration")
			}, "", ""},
		{"EKS checks skipped when denied", EKS("t"), nil,
			func(s *fakeaws.Server) {
				s.EKS.SetAddonVersions()
				s.IAM.Deny("eks:DescribeAddonVersions")
				s.IAM.Deny("eks:DescribeClusterVersions")
			}, "", ""},
		{"denied zone listing fails: terraform needs EC2's describe calls too", EKS("t"), nil,
			func(s *fakeaws.Server) { s.IAM.Deny("ec2:DescribeInstanceTypeOfferings") },
			"credentials", "ec2:DescribeInstanceTypeOfferings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			aws := fakeAWS(t)
			if tc.arrange != nil {
				tc.arrange(aws)
			}
			user := aws.IAM.AddUser("123456789012", "kubeopera")
			creds := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
			in := map[string]string{"region": "eu-north-1", "credentialRef": "c", "apiAllowedCIDRs": "203.0.113.0/24"}
			for k, v := range tc.inputs {
				in[k] = v
			}
			err := tc.p.Validate(context.Background(), sdk.ValidateRequest{Inputs: in, Credentials: creds})
			fields := sdk.FieldErrors(err)
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.field != "" && (len(fields) != 1 || fields[0].Field != tc.field || !strings.Contains(fields[0].Message, tc.want)):
				t.Fatalf("Validate = %v\nwant %s: ...%s...", err, tc.field, tc.want)
			}
		})
	}
}

// KUBEOPERA_AWS_PREFLIGHT=off makes Validate call nothing at all: the
// setting every test suite and `kubeopera dev` use.
func TestPreflightOffCallsNoAWS(t *testing.T) {
	aws := fakeAWS(t)
	t.Setenv(envPreflight, "off")
	t.Setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:1") // a call would fail Validate
	creds := sdk.Credentials{"kind": "access_key", "accessKeyId": "AKIAABCDEFGHIJKLMNOP", "secretAccessKey": strings.Repeat("s", 40)}
	in := map[string]string{"region": "eu-north-1", "credentialRef": "c", "apiAllowedCIDRs": "203.0.113.0/24"}
	if err := EKS("t").Validate(context.Background(), sdk.ValidateRequest{Inputs: in, Credentials: creds}); err != nil {
		t.Fatalf("Validate with the preflight off: %v", err)
	}
	if n := aws.EC2.Calls() + aws.EKS.Calls() + aws.SQ.Calls(); n != 0 {
		t.Errorf("AWS answered %d calls with the preflight off", n)
	}
}

func TestStandardFamilies(t *testing.T) {
	for typ, want := range map[string]bool{"t3.medium": true, "m7g.large": true, "c7i.xlarge": true, "r6a.large": true,
		"z1d.large": true, "i4i.large": true, "g5.xlarge": false, "p4d.24xlarge": false, "inf2.xlarge": false,
		"trn1.2xlarge": false, "dl1.24xlarge": false, "mac2.metal": false, "hpc7g.4xlarge": false, "x2idn.16xlarge": false} {
		if got := standardFamily(typ); got != want {
			t.Errorf("standardFamily(%s) = %v, want %v (quota %s)", typ, got, want, awsapi.OnDemandStandardVCPUQuota)
		}
	}
}
