package tfmodules

import (
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// aws-vanilla runs the AWS cloud controller manager and the EBS CSI
// driver on its control planes (installed by the bootstrap). These tests
// read the module text: the permissions those controllers need, on the
// control-plane role only; the cluster tag they find the cluster's
// resources by; and the metadata hop limit that keeps other pods away from
// the instance roles.

// cloudControllerActions are the calls of cloud-provider-aws's documented
// control-plane policy this cluster needs (not routes: flannel uses VXLAN;
// not volumes: the EBS CSI driver has its own policy).
var cloudControllerActions = []string{
	"autoscaling:DescribeAutoScalingGroups", "ec2:DescribeInstances", "ec2:DescribeRegions",
	"ec2:DescribeAvailabilityZones", "ec2:DescribeRouteTables", "ec2:DescribeSecurityGroups", "ec2:DescribeSubnets",
	"ec2:DescribeVpcs", "ec2:CreateSecurityGroup", "ec2:CreateTags", "ec2:AuthorizeSecurityGroupIngress",
	"ec2:RevokeSecurityGroupIngress", "ec2:DeleteSecurityGroup",
	"elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:DeleteLoadBalancer",
	"elasticloadbalancing:DescribeLoadBalancers", "elasticloadbalancing:CreateTargetGroup",
	"elasticloadbalancing:RegisterTargets", "elasticloadbalancing:DeregisterTargets",
	"elasticloadbalancing:CreateListener", "elasticloadbalancing:ModifyTargetGroup",
	"elasticloadbalancing:DescribeTargetGroups", "elasticloadbalancing:DescribeTargetHealth",
	"elasticloadbalancing:AddTags", "elasticloadbalancing:RegisterInstancesWithLoadBalancer",
	"iam:CreateServiceLinkedRole", "kms:DescribeKey",
}

func TestControlPlanesMayRunTheCloudControllerAndTheEBSDriver(t *testing.T) {
	files := computeModule(t)
	if got := expr(t, files, "role", "resource", "aws_iam_role_policy", "cloud_controller"); got != "aws_iam_role.control_plane.id" {
		t.Errorf("cloud controller policy is on %s, want the control-plane role", got)
	}
	if got := expr(t, files, "policy", "resource", "aws_iam_role_policy", "cloud_controller"); got != "data.aws_iam_policy_document.cloud_controller.json" {
		t.Errorf("cloud controller role policy = %s", got)
	}
	if got := expr(t, files, "role", "resource", "aws_iam_role_policy_attachment", "ebs_csi"); got != "aws_iam_role.control_plane.name" {
		t.Errorf("EBS CSI policy is on %s, want the control-plane role", got)
	}
	if got := expr(t, files, "policy_arn", "resource", "aws_iam_role_policy_attachment", "ebs_csi"); !strings.HasSuffix(got, `:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"`) {
		t.Errorf("EBS CSI policy = %s, want AWS's AmazonEBSCSIDriverPolicy", got)
	}

	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{
		"region": cty.StringVal("eu-north-1")})}}
	granted := map[string]statement{}
	for _, st := range policyStatements(t, files, ctx, "cloud_controller") {
		for _, a := range st.actions {
			if strings.Contains(a, "*") {
				t.Errorf("statement %s grants a wildcard action %s", st.sid, a)
			}
			granted[a] = st
		}
		mutates := false
		for _, a := range st.actions {
			verb := a[strings.Index(a, ":")+1:]
			mutates = mutates || !strings.HasPrefix(verb, "Describe")
		}
		if mutates && len(st.conditions) == 0 {
			t.Errorf("statement %s changes resources without a condition (region, VPC or service)", st.sid)
		}
	}
	for _, a := range cloudControllerActions {
		if _, ok := granted[a]; !ok {
			t.Errorf("the control planes may not call %s, which the cloud controller manager needs", a)
		}
	}
	for _, a := range []string{"ec2:CreateRoute", "ec2:DeleteRoute", "ec2:CreateVolume", "ec2:AttachVolume", "ec2:DeleteVolume"} {
		if _, ok := granted[a]; ok {
			t.Errorf("cloud controller policy grants %s, which this cluster does not use", a)
		}
	}
	sg := granted["ec2:AuthorizeSecurityGroupIngress"]
	if len(sg.conditions) != 1 || sg.conditions[0].variable != "ec2:Vpc" || one(sg.conditions[0].values) != "local.vpc_arn" {
		t.Errorf("security group rules may change %+v, want only in the cluster's VPC (ec2:Vpc)", sg.conditions)
	}
}

// The worker role gains nothing: no pod on a worker needs AWS credentials
// (the EBS CSI node plugin reads the Node object).
func TestWorkerRoleHasOnlyTheRelay(t *testing.T) {
	var uses []string
	for _, f := range computeModule(t) {
		for _, b := range f.body.Blocks {
			if b.Type != "resource" {
				continue
			}
			for _, a := range b.Body.Attributes {
				for _, v := range a.Expr.Variables() {
					if name, ok := attrAt(v, 1); ok && v.RootName() == "aws_iam_role" && name == "worker" {
						uses = append(uses, strings.Join(b.Labels, "."))
					}
				}
			}
		}
	}
	want := "aws_iam_instance_profile.worker aws_iam_role_policy.worker aws_iam_role_policy_attachment.ssm_core"
	if got := strings.Join(sortedUnique(uses), " "); got != want {
		t.Errorf("resources using the worker role: %s, want only %s", got, want)
	}
}

// The cloud controller manager finds the cluster by the
// kubernetes.io/cluster/<name> tag: on its instances (control planes and
// the workers the Auto Scaling Group launches), their security groups and
// the subnets, all with the same name.
func TestClusterTagIsOnInstancesSecurityGroupsAndSubnets(t *testing.T) {
	const name = "kubeopera-" + testClusterID
	want := "kubernetes.io/cluster/" + name
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{
		"name": cty.StringVal(name), "cluster_name": cty.StringVal(name)})}}
	for module, value := range map[string]string{"compute": "owned", "security": "owned", "vpc": "shared"} {
		e, text := local(t, moduleFiles(t, module), "cluster_tag")
		v, diags := e.Value(ctx)
		if diags.HasErrors() {
			t.Fatalf("%s: local.cluster_tag = %s: %v", module, text, diags)
		}
		if tag := v.GetAttr(want); tag.AsString() != value {
			t.Errorf("%s: cluster tag %s = %s, want %s", module, want, tag.AsString(), value)
		}
	}
	compute := computeModule(t)
	if got := expr(t, compute, "tags", "resource", "aws_instance", "control_plane"); !strings.HasPrefix(got, "merge(local.cluster_tag,") {
		t.Errorf("control-plane instance tags = %s, want the cluster tag", got)
	}
	_, lt, src := block(t, compute, "resource", "aws_launch_template", "worker")
	tagged := false
	for _, b := range lt.Body.Blocks {
		if b.Type == "tag_specifications" && strings.Contains(string(b.Range().SliceBytes(src)), `resource_type = "instance"`) {
			tagged = strings.Contains(string(b.Body.Attributes["tags"].Expr.Range().SliceBytes(src)), "local.cluster_tag")
		}
	}
	if !tagged {
		t.Error("workers the Auto Scaling Group launches do not carry the cluster tag")
	}
	security := moduleFiles(t, "security")
	for _, sg := range []string{"control_plane", "worker"} {
		if got := expr(t, security, "tags", "resource", "aws_security_group", sg); !strings.HasPrefix(got, "merge(local.cluster_tag,") {
			t.Errorf("security group %s tags = %s, want the cluster tag", sg, got)
		}
	}
	if got := expr(t, compute, "tags", "resource", "aws_security_group", "api_public"); strings.Contains(got, "cluster_tag") {
		t.Errorf("the public API's security group carries the cluster tag: an instance must have exactly one tagged group")
	}
	for _, sub := range []string{"public", "private"} {
		if got := expr(t, moduleFiles(t, "vpc"), "tags", "resource", "aws_subnet", sub); !strings.HasPrefix(got, "merge(local.cluster_tag,") {
			t.Errorf("%s subnets tags = %s, want the cluster tag", sub, got)
		}
	}
	// The root gives every module the same name, so the tags agree.
	m, err := Vanilla(vanillaInput(1))
	if err != nil {
		t.Fatal(err)
	}
	root := string(m.Files["main.tf"])
	if n := strings.Count(root, `= "`+name+`"`); n != 4 {
		t.Errorf("root passes %q %d times, want 4 (vpc name and cluster_name, security, compute):\n%s", name, n, root)
	}
}

// Every instance keeps a metadata hop limit of 1: the pods that need
// instance credentials run on the host network.
func TestEveryInstanceKeepsAMetadataHopLimitOfOne(t *testing.T) {
	files := computeModule(t)
	for _, r := range [][]string{{"aws_instance", "control_plane"}, {"aws_launch_template", "worker"}} {
		_, b, src := block(t, files, "resource", r...)
		md := nested(b, "metadata_options")
		if md == nil {
			t.Fatalf("%s has no metadata_options", strings.Join(r, "."))
		}
		for attr, want := range map[string]string{"http_tokens": `"required"`, "http_put_response_hop_limit": "1"} {
			if a, ok := md.Body.Attributes[attr]; !ok || string(a.Expr.Range().SliceBytes(src)) != want {
				t.Errorf("%s: %s is not %s", strings.Join(r, "."), attr, want)
			}
		}
	}
}

func nested(b *hclsyntax.Block, typ string) *hclsyntax.Block {
	for _, n := range b.Body.Blocks {
		if n.Type == typ {
			return n
		}
	}
	return nil
}

func attrAt(trav hcl.Traversal, i int) (string, bool) {
	if len(trav) <= i {
		return "", false
	}
	a, ok := trav[i].(hcl.TraverseAttr)
	return a.Name, ok
}

func sortedUnique(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
