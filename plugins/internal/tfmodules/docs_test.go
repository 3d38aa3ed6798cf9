package tfmodules

import (
	"encoding/json"
	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
	"os"
	"regexp"
	"strings"
	"testing"
)

// docs/aws.md's IAM policy is valid JSON and grants what the modules and
// the plugins call beyond plain resource CRUD: passing the node and cluster
// roles, service-linked roles, EKS's OIDC provider, the relay's cleanup,
// the public Ubuntu image parameter and Validate's preflight calls. Its
// role ARNs match the names the modules give their roles.
func TestDocumentedIAMPolicyCoversThePlugins(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/aws.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```json\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/aws.md has no json policy block")
	}
	if !strings.Contains(string(doc), "`"+upstream.EBSCSIAddon.Version+"`") {
		t.Errorf("docs/aws.md does not name the pinned EBS CSI add-on %s", upstream.EBSCSIAddon.Version)
	}
	var policy struct {
		Statement []struct {
			Action   any
			Resource any
		}
	}
	if err := json.Unmarshal(m[1], &policy); err != nil {
		t.Fatalf("the policy in docs/aws.md is not valid JSON: %v", err)
	}
	granted := string(m[1])
	for _, action := range []string{"iam:PassRole", "iam:CreateServiceLinkedRole", "iam:CreateOpenIDConnectProvider",
		"ssm:GetParametersByPath", "ssm:DeleteParameters", "eks:DescribeClusterVersions", "eks:CreateAddon", "eks:DescribeAddon", "eks:DeleteAddon", "ec2:Describe*",
		"elasticloadbalancing:SetSecurityGroups", "kms:CreateKey",
		// The sweep after a destroy (awsapi.Sweep); Describe* covers its reads.
		"ec2:DeleteVolume", "ec2:DeleteSecurityGroup", "elasticloadbalancing:DeleteLoadBalancer",
		"ec2:DeleteNetworkInterface", "ec2:DeleteVpcEndpoints",
		"elasticloadbalancing:DeleteTargetGroup", "elasticloadbalancing:Describe*", "kms:Decrypt", "arn:aws:ssm:*::parameter/aws/service/canonical/*",
		// Validate's preflight (awsprovider.checkWithAWS); ec2:Describe*
		// covers DescribeInstanceTypes and DescribeInstanceTypeOfferings.
		// Retry of a worker's failed bootstrap (awsprovider vanilla.retry).
		"autoscaling:TerminateInstanceInAutoScalingGroup", "ssm:PutParameter",
		"eks:DescribeAddonVersions", "eks:DescribeAddonConfiguration", "servicequotas:GetServiceQuota", "servicequotas:GetAWSDefaultServiceQuota"} {
		if !strings.Contains(granted, `"`+action+`"`) {
			t.Errorf("the documented policy does not grant %s", action)
		}
	}
	_, iamPrefix := local(t, computeModule(t), "iam_prefix")
	for _, f := range []string{"modules/compute/iam.tf", "modules/eks/main.tf"} {
		src, err := embedded.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range regexp.MustCompile(`name_prefix\s*=\s*"([^"]*)"`).FindAllStringSubmatch(string(src), -1) {
			name := strings.ReplaceAll(p[1], "${local.iam_prefix}", strings.Trim(iamPrefix, `"`))
			if !strings.HasPrefix(name, "ko-") {
				t.Errorf("%s: name_prefix %q is outside the policy's role/ko-* scope", f, p[1])
			}
		}
	}
}
