package tfmodules

import (
	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
	"io/fs"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// awsProviderBlock parses the root module and returns its provider "aws".
func awsProviderBlock(t *testing.T, m terraform.Module) *hclsyntax.Block {
	t.Helper()
	f, diags := hclsyntax.ParseConfig(m.Files["main.tf"], "main.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var found *hclsyntax.Block
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "provider" && len(b.Labels) == 1 && b.Labels[0] == "aws" {
			if found != nil {
				t.Fatal("two provider \"aws\" blocks")
			}
			found = b
		}
	}
	if found == nil {
		t.Fatal("no provider \"aws\" block")
	}
	return found
}

// With a role, the provider assumes it itself (and so renews the session
// through a long run); credentials never appear in the module, only in the
// runner's environment.
func TestTheProviderAssumesTheRoleItself(t *testing.T) {
	role := &AssumeRole{RoleARN: "arn:aws:iam::210987654321:role/deployer", ExternalID: "ext-1", SessionName: "kubeopera"}
	v := vanillaInput(1)
	v.AssumeRole = role
	e := eksInput()
	e.AssumeRole = role
	for name, build := range map[string]func() (terraform.Module, error){
		"vanilla": func() (terraform.Module, error) { return Vanilla(v) },
		"eks":     func() (terraform.Module, error) { return EKS(e) },
	} {
		m, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := awsProviderBlock(t, m)
		for _, attr := range []string{"access_key", "secret_key", "token", "profile", "shared_credentials_files"} {
			if _, ok := p.Body.Attributes[attr]; ok {
				t.Errorf("%s: the provider block sets %s: credentials belong in the environment", name, attr)
			}
		}
		var blocks []*hclsyntax.Block
		for _, b := range p.Body.Blocks {
			if b.Type == "assume_role" {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) != 1 {
			t.Fatalf("%s: %d assume_role blocks, want 1", name, len(blocks))
		}
		want := map[string]string{"role_arn": role.RoleARN, "external_id": "ext-1", "session_name": "kubeopera"}
		for attr, w := range want {
			a, ok := blocks[0].Body.Attributes[attr]
			if !ok {
				t.Errorf("%s: assume_role has no %s", name, attr)
				continue
			}
			if v, diags := a.Expr.Value(nil); diags.HasErrors() || v.AsString() != w {
				t.Errorf("%s: assume_role %s = %#v, want %q", name, attr, v, w)
			}
		}
		if _, ok := blocks[0].Body.Attributes["duration"]; ok {
			t.Errorf("%s: assume_role sets a duration: the role's own maximum may be lower, and AWS then refuses", name)
		}
	}
	m, err := Vanilla(vanillaInput(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range awsProviderBlock(t, m).Body.Blocks {
		if b.Type == "assume_role" {
			t.Error("an access key credential got an assume_role block")
		}
	}
}

// Every module and both roots ask for the same hashicorp/aws constraint,
// on the provider's current major: Terraform resolves one provider for the
// whole tree, so one module left on another major makes init fail.
func TestEveryModuleRequiresTheCurrentAWSProviderMajor(t *testing.T) {
	if upstream.TerraformAWSProvider.Version != "~> 6.0" {
		t.Errorf("AWS provider constraint %q: the current major is 6 (checked 2026-12-01)", upstream.TerraformAWSProvider.Version)
	}
	paths, err := fs.Glob(embedded, "modules/*/versions.tf")
	if err != nil || len(paths) < 4 {
		t.Fatalf("module versions files %v: %v", paths, err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		files[p], _ = fs.ReadFile(embedded, p)
	}
	for name, m := range trees(t) {
		files[name+" root"] = m.Files["main.tf"]
	}
	for name, src := range files {
		f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := ""
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			for _, rp := range b.Body.Blocks {
				if b.Type != "terraform" || rp.Type != "required_providers" || rp.Body.Attributes["aws"] == nil {
					continue
				}
				v, diags := rp.Body.Attributes["aws"].Expr.Value(nil)
				if diags.HasErrors() {
					t.Fatalf("%s: %v", name, diags)
				}
				got = v.GetAttr("version").AsString()
			}
		}
		if got != upstream.TerraformAWSProvider.Version {
			t.Errorf("%s requires hashicorp/aws %q, want %q", name, got, upstream.TerraformAWSProvider.Version)
		}
	}
}

// An EKS cluster whose version leaves standard support is upgraded, not
// moved to extended support and its higher rate.
func TestEKSClusterStaysInStandardSupport(t *testing.T) {
	_, b, src := block(t, moduleFiles(t, "eks"), "resource", "aws_eks_cluster", "this")
	var policies []*hclsyntax.Block
	for _, nb := range b.Body.Blocks {
		if nb.Type == "upgrade_policy" {
			policies = append(policies, nb)
		}
	}
	if len(policies) != 1 {
		t.Fatalf("aws_eks_cluster.this has %d upgrade_policy blocks, want 1", len(policies))
	}
	a, ok := policies[0].Body.Attributes["support_type"]
	if !ok || string(a.Expr.Range().SliceBytes(src)) != `"STANDARD"` {
		t.Errorf("upgrade_policy support_type is not \"STANDARD\": EKS then defaults to EXTENDED and bills it")
	}
}
