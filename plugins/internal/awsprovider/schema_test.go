package awsprovider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
)

var vanillaOpts = Options{Name: "aws-vanilla", ControlPlane: true, MinNodes: 0, Versions: VanillaVersions}
var eksOpts = Options{Name: "aws-eks", MinNodes: 1, Versions: EKSVersions}

func TestValidate(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{"region": "eu-north-1", "credentialRef": "cred-1", "apiAllowedCIDRs": "203.0.113.0/24"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	goodKeys := sdk.Credentials{"kind": "access_key", "accessKeyId": "AKIAABCDEFGHIJKLMNOP", "secretAccessKey": strings.Repeat("s", 40)}
	cases := []struct {
		name   string
		opts   Options
		inputs map[string]string
		creds  sdk.Credentials
		want   map[string]string // field -> part of the message
	}{
		{"defaults are valid", vanillaOpts, base(), nil, nil},
		{"three control planes", vanillaOpts, base("controlPlaneCount", "3"), nil, nil},
		{"even control planes break quorum", vanillaOpts, base("controlPlaneCount", "2"), nil,
			map[string]string{"inputs.controlPlaneCount": "use 1 or 3"}},
		{"too many control planes", vanillaOpts, base("controlPlaneCount", "9"), nil,
			map[string]string{"inputs.controlPlaneCount": "1, 3, 5 or 7"}},
		{"eks has no control plane input", eksOpts, base("controlPlaneCount", "1"), nil,
			map[string]string{"inputs.controlPlaneCount": "not an input"}},
		{"eks needs a node", eksOpts, base("nodeCount", "0"), nil, map[string]string{"inputs.nodeCount": "between 1 and 100"}},
		{"vanilla may have no workers", vanillaOpts, base("nodeCount", "0"), nil, nil},
		{"bad region", vanillaOpts, base("region", "Europe"), nil, map[string]string{"inputs.region": "not an AWS region"}},
		{"gov region", vanillaOpts, base("region", "us-gov-west-1"), nil, nil},
		{"bad instance type", vanillaOpts, base("instanceType", "large"), nil, map[string]string{"inputs.instanceType": "t3.medium"}},
		{"version not offered", eksOpts, base("kubernetesVersion", "1.20"), nil, map[string]string{"inputs.kubernetesVersion": "one of 1.36, 1.35"}},
		{"EKS 1.31 is gone", eksOpts, base("kubernetesVersion", "1.31"), nil, map[string]string{"inputs.kubernetesVersion": "not offered"}},
		{"patch release", vanillaOpts, base("kubernetesVersion", "1.36.2"), nil, nil},
		{"patch release as the product example writes it", eksOpts, base("kubernetesVersion", "1.35.0"), nil, nil},
		{"patch of a minor not offered", vanillaOpts, base("kubernetesVersion", "1.31.0"), nil, map[string]string{"inputs.kubernetesVersion": "1.31 is not offered"}},
		{"not a version", vanillaOpts, base("kubernetesVersion", "latest"), nil, map[string]string{"inputs.kubernetesVersion": "not a Kubernetes version"}},
		{"missing required fields all at once", eksOpts, map[string]string{}, nil,
			map[string]string{"inputs.region": "required", "inputs.credentialRef": "required", "inputs.apiAllowedCIDRs": "is required"}},
		{"vanilla API allow-list has no default", vanillaOpts, base("apiAllowedCIDRs", ""), nil,
			map[string]string{"inputs.apiAllowedCIDRs": "required"}},
		{"eks public endpoint needs an allow-list", eksOpts, base("apiAllowedCIDRs", " "), nil,
			map[string]string{"inputs.apiAllowedCIDRs": "is required: list who may reach the Kubernetes API"}},
		{"eks private endpoint only", eksOpts, base("apiAllowedCIDRs", "", "endpointPublicAccess", "false"), nil, nil},
		{"eks public endpoint only, narrow allow-list: nodes behind the NAT never join", eksOpts,
			base("endpointPrivateAccess", "false"), nil, map[string]string{"inputs.endpointPrivateAccess": "set endpointPrivateAccess to true"}},
		{"eks public endpoint only, open to everyone", eksOpts, base("endpointPrivateAccess", "false", "apiAllowedCIDRs", "0.0.0.0/0"), nil, nil},
		{"vanilla ignores the EKS endpoint rule", vanillaOpts, base(), nil, nil},
		{"China region", eksOpts, base("region", "cn-north-1"), nil, map[string]string{"inputs.region": "AWS China partition (aws-cn)"}},
		{"isolated region", vanillaOpts, base("region", "us-iso-east-1"), nil, map[string]string{"inputs.region": "(aws-iso)"}},
		{"secret region", vanillaOpts, base("region", "us-isob-east-1"), nil, map[string]string{"inputs.region": "(aws-iso-b)"}},
		{"European isolated region", eksOpts, base("region", "eu-isoe-west-1"), nil, map[string]string{"inputs.region": "aws-iso-e"}},
		{"eks with no endpoint", eksOpts, base("endpointPublicAccess", "false", "endpointPrivateAccess", "false"), nil,
			map[string]string{"inputs.endpointPrivateAccess": "needs an endpoint"}},
		{"everyone, asked for", vanillaOpts, base("apiAllowedCIDRs", "0.0.0.0/0"), nil, nil},
		{"several CIDRs", eksOpts, base("apiAllowedCIDRs", "203.0.113.7/32, 198.51.100.0/24"), nil, nil},
		{"host bits set", vanillaOpts, base("apiAllowedCIDRs", "203.0.113.7/24"), nil, map[string]string{"inputs.apiAllowedCIDRs": "write 203.0.113.0/24"}},
		{"IPv6 not supported", vanillaOpts, base("apiAllowedCIDRs", "2001:db8::/32"), nil, map[string]string{"inputs.apiAllowedCIDRs": "not an IPv4 CIDR"}},
		{"type error reported once", vanillaOpts, base("nodeCount", "two"), nil, map[string]string{"inputs.nodeCount": "whole number"}},
		{"good access key", eksOpts, base(), goodKeys, nil},
		{"bad access key, secret never echoed", eksOpts, base(), sdk.Credentials{"kind": "access_key", "accessKeyId": "nope", "secretAccessKey": "hunter2"},
			map[string]string{"credentials.accessKeyId": "AKIA", "credentials.secretAccessKey": "40 characters"}},
		{"assume role", eksOpts, base(), sdk.Credentials{"kind": "assume_role", "roleArn": "arn:aws:iam::123456789012:role/kubeopera"}, nil},
		{"bad role arn", eksOpts, base(), sdk.Credentials{"kind": "assume_role", "roleArn": "role"}, map[string]string{"credentials.roleArn": "IAM role ARN"}},
		{"unknown credential kind", eksOpts, base(), sdk.Credentials{"kind": "password"}, map[string]string{"credentials.kind": "access_key or assume_role"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := Validate(tc.opts, tc.inputs, tc.creds)
			got := map[string]string{}
			for _, e := range errs {
				if _, dup := got[e.Field]; dup {
					t.Errorf("%s reported twice", e.Field)
				}
				got[e.Field] = e.Message
				if strings.Contains(e.Message, "hunter2") {
					t.Errorf("%s echoes the secret: %q", e.Field, e.Message)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("errors = %v, want fields %v", errs, tc.want)
			}
			for f, part := range tc.want {
				if !strings.Contains(got[f], part) {
					t.Errorf("%s = %q, want it to mention %q", f, got[f], part)
				}
			}
		})
	}
}

func TestSchemaDefaults(t *testing.T) {
	got := map[string]string{}
	for _, f := range Schema(vanillaOpts) {
		got[f.Name] = f.Default
	}
	want := map[string]string{"region": "", "controlPlaneCount": "1", "nodeCount": "2", "instanceType": "t3.medium",
		"kubernetesVersion": "1.36", "credentialRef": "", "apiAllowedCIDRs": ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("defaults = %v, want %v", got, want)
	}
}
