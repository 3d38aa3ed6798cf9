package tfmodules

import (
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
