package tfmodules

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// EKS ships no EBS driver: without the aws-ebs-csi-driver add-on, a volume
// of the tree's StorageClass (ebs.csi.aws.com) stays Pending. The add-on's
// controller must get its credentials through IRSA from a role that only
// its own service account, through this cluster's OIDC provider, may
// assume, and that carries AWS's managed policy for the driver.
func TestEKSInstallsTheEBSDriverWithAnIRSARole(t *testing.T) {
	files := moduleFiles(t, "eks")
	if got := expr(t, files, "addon_name", "resource", "aws_eks_addon", "ebs_csi"); got != `"aws-ebs-csi-driver"` {
		t.Errorf("aws_eks_addon.ebs_csi installs %s, want the aws-ebs-csi-driver add-on", got)
	}
	if got := expr(t, files, "cluster_name", "resource", "aws_eks_addon", "ebs_csi"); got != "aws_eks_cluster.this.name" {
		t.Errorf("add-on cluster_name = %s", got)
	}
	if got := expr(t, files, "service_account_role_arn", "resource", "aws_eks_addon", "ebs_csi"); got != "aws_iam_role.ebs_csi.arn" {
		t.Errorf("add-on service_account_role_arn = %s, want the IRSA role (else the controller has no credentials)", got)
	}
	if got := expr(t, files, "depends_on", "resource", "aws_eks_addon", "ebs_csi"); !strings.Contains(got, "aws_eks_node_group.this") {
		t.Errorf("add-on depends_on = %s: it turns ACTIVE only once its controller runs on a node", got)
	}
	if got := expr(t, files, "addon_version", "resource", "aws_eks_addon", "ebs_csi"); got != "var.ebs_csi_addon_version" {
		t.Errorf("add-on addon_version = %s, want the pinned var.ebs_csi_addon_version (else EKS picks its default)", got)
	}
	if got := expr(t, files, "role", "resource", "aws_iam_role_policy_attachment", "ebs_csi"); got != "aws_iam_role.ebs_csi.name" {
		t.Errorf("driver policy attached to %s", got)
	}
	if got := expr(t, files, "policy_arn", "resource", "aws_iam_role_policy_attachment", "ebs_csi"); got != `"${local.policy_arn}/service-role/AmazonEBSCSIDriverPolicy"` {
		t.Errorf("driver role's policy = %s, want AWS's AmazonEBSCSIDriverPolicy", got)
	}
	if got := expr(t, files, "assume_role_policy", "resource", "aws_iam_role", "ebs_csi"); got != "data.aws_iam_policy_document.ebs_csi_assume.json" {
		t.Errorf("driver role trusts %s", got)
	}
	if got := expr(t, files, "client_id_list", "resource", "aws_iam_openid_connect_provider", "this"); got != `["sts.amazonaws.com"]` {
		t.Errorf("OIDC provider audiences = %s, want sts.amazonaws.com", got)
	}

	const issuer = "https://oidc.eks.eu-north-1.amazonaws.com/id/0123456789ABCDEF"
	cluster := cty.ObjectVal(map[string]cty.Value{"this": cty.ObjectVal(map[string]cty.Value{
		"identity": cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{
			"oidc": cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"issuer": cty.StringVal(issuer)})})})})})})
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"aws_eks_cluster": cluster},
		Functions: map[string]function.Function{"replace": stdlib.ReplaceFunc}}
	locals := map[string]cty.Value{}
	for _, name := range []string{"oidc_issuer", "ebs_csi_service_account"} {
		e, text := local(t, files, name)
		v, diags := e.Value(ctx)
		if diags.HasErrors() {
			t.Fatalf("local.%s = %s: %v", name, text, diags)
		}
		locals[name] = v
	}
	ctx.Variables["local"] = cty.ObjectVal(locals)

	statements := policyStatements(t, files, ctx, "ebs_csi_assume")
	if len(statements) != 1 {
		t.Fatalf("driver role's trust policy has %d statements, want 1", len(statements))
	}
	st := statements[0]
	if strings.Join(st.actions, ",") != "sts:AssumeRoleWithWebIdentity" {
		t.Errorf("trust policy actions %v, want only sts:AssumeRoleWithWebIdentity", st.actions)
	}
	if st.principalType != "Federated" || strings.Join(st.principals, ",") != "aws_iam_openid_connect_provider.this.arn" {
		t.Errorf("trust policy principal %s %v, want this cluster's OIDC provider", st.principalType, st.principals)
	}
	host := strings.TrimPrefix(issuer, "https://")
	want := map[string]string{
		host + ":sub": "system:serviceaccount:kube-system:ebs-csi-controller-sa",
		host + ":aud": "sts.amazonaws.com",
	}
	got := map[string]string{}
	for _, c := range st.conditions {
		if c.test != "StringEquals" {
			t.Errorf("condition on %s uses %s, want StringEquals (a pattern could admit other service accounts)", c.variable, c.test)
		}
		got[c.variable] = strings.Join(c.values, ",")
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("trust policy condition %s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("trust policy conditions %v, want exactly %v", got, want)
	}
}
