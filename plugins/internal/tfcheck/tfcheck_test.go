package tfcheck_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/plugins/internal/tfcheck"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// child is a small module the table cases call: one required and one
// optional variable, two outputs.
const child = `variable "name" {
  type = string
}

variable "size" {
  type    = number
  default = 1
}

locals {
  label = "${var.name}-${var.size}"
}

resource "terraform_data" "this" {
  input = [for i in range(var.size) : "${local.label}-${i}"]

  dynamic "lifecycle_hint" {
    for_each = toset([var.name])
    content {
      value = lifecycle_hint.value
    }
  }
}

output "id" {
  value = terraform_data.this.id
}

output "names" {
  value = terraform_data.this.output
}
`

func tree(root string) map[string][]byte {
	return map[string][]byte{"main.tf": []byte(root), "modules/child/main.tf": []byte(child)}
}

func TestFindings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		want  []string
	}{
		{
			name: "a correct tree has no findings",
			files: tree(`module "a" {
  source = "./modules/child"
  count  = 2
  name   = "x"
}

module "b" {
  source     = "./modules/child"
  name       = module.a[0].id
  size       = length(module.a[*].names)
  depends_on = [module.a]
}

output "ids" {
  value = [module.a[1].id, module.b.names]
}
`),
		},
		{
			name: "an argument the child does not declare",
			files: tree(`module "a" {
  source = "./modules/child"
  name   = "x"
  colour = "blue"
}
`),
			want: []string{`main.tf:4: module "a": argument "colour" is not a variable of modules/child; declared: name, size`},
		},
		{
			name:  "a required variable left out",
			files: tree("module \"a\" {\n  source = \"./modules/child\"\n  size   = 3\n}\n"),
			want:  []string{`main.tf:1: module "a": required variable "name" of modules/child is not set (it has no default)`},
		},
		{
			name: "an output the child does not declare",
			files: tree(`module "a" {
  source = "./modules/child"
  name   = "x"
}

output "endpoint" {
  value = module.a.endpoint
}
`),
			want: []string{`main.tf:7: module.a.endpoint: ./modules/child declares no output "endpoint"; it has: id, names`},
		},
		{
			name: "an output of an indexed module call",
			files: tree(`module "a" {
  source = "./modules/child"
  count  = 1
  name   = "x"
}

output "id" {
  value = module.a[0].ident
}
`),
			want: []string{`main.tf:8: module.a.ident: ./modules/child declares no output "ident"; it has: id, names`},
		},
		{
			name: "a module that is not called",
			files: tree(`output "id" {
  value = module.vpc.id
}

resource "terraform_data" "x" {
  depends_on = [module.network]
}
`),
			want: []string{
				`main.tf:2: module.vpc: there is no module "vpc" in .`,
				`main.tf:6: module.network: there is no module "network" in .`,
			},
		},
		{
			name: "a source directory missing from the tree",
			files: tree(`module "a" {
  source = "./modules/gone"
  name   = "x"
}
`),
			want: []string{`main.tf:2: module "a": source "./modules/gone": no module in modules/gone (no .tf files there)`},
		},
		{
			name:  "a registry source",
			files: tree("module \"a\" {\n  source = \"terraform-aws-modules/vpc/aws\"\n}\n"),
			want:  []string{`main.tf:2: module "a": source "terraform-aws-modules/vpc/aws" is not a local path; the tree must contain every module (nothing can be downloaded)`},
		},
		{
			name: "undeclared variables and locals inside a child",
			files: map[string][]byte{
				"main.tf":               []byte("module \"a\" {\n  source = \"./modules/child\"\n}\n"),
				"modules/child/main.tf": []byte("output \"x\" {\n  value = \"${var.prefix}-${local.suffix}\"\n}\n"),
			},
			want: []string{
				`modules/child/main.tf:2: local.suffix is not defined in modules/child`,
				`modules/child/main.tf:2: var.prefix is not declared in modules/child`,
			},
		},
		{
			name: "nested calls resolve sources from the calling module",
			files: map[string][]byte{
				"main.tf":                 []byte("module \"outer\" {\n  source = \"./modules/outer\"\n}\n"),
				"modules/outer/main.tf":   []byte("module \"inner\" {\n  source = \"../child\"\n  name   = \"x\"\n}\n\noutput \"v\" {\n  value = module.inner.nope\n}\n"),
				"modules/child/main.tf":   []byte(child),
				"modules/unused/other.tf": []byte("output \"o\" {\n  value = var.undeclared\n}\n"),
			},
			want: []string{
				`modules/outer/main.tf:7: module.inner.nope: ../child declares no output "nope"; it has: id, names`,
				`modules/unused/other.tf:2: var.undeclared is not declared in modules/unused`,
			},
		},
		{
			name:  "a syntax error is reported where it is",
			files: map[string][]byte{"main.tf": []byte("output \"x\" {\n  value = \n}\n")},
			want:  []string{"main.tf:2: Invalid expression: Expected the start of an expression, but found an invalid expression token."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range tfcheck.Check(tc.files) {
				got = append(got, f.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestThePluginsModuleTreesPass(t *testing.T) {
	trees := map[string]func() (terraform.Module, error){
		"aws-vanilla, 1 control plane": func() (terraform.Module, error) {
			return tfmodules.Vanilla(tfmodules.VanillaInput{ClusterID: "c1", Region: "eu-north-1", ControlPlaneCount: 1,
				NodeCount: 0, InstanceType: "t3.medium", KubernetesVersion: "1.36", APIAllowedCIDRs: []string{"0.0.0.0/0"}})
		},
		"aws-vanilla, 3 control planes": func() (terraform.Module, error) {
			return tfmodules.Vanilla(tfmodules.VanillaInput{ClusterID: "c1", Region: "eu-north-1", ControlPlaneCount: 3,
				NodeCount: 2, InstanceType: "m7g.large", KubernetesVersion: "1.37", AZCount: 3,
				APIAllowedCIDRs: []string{"203.0.113.0/24"}})
		},
		"aws-eks": func() (terraform.Module, error) {
			return tfmodules.EKS(tfmodules.EKSInput{ClusterID: "c1", Region: "eu-north-1", NodeCount: 2,
				InstanceType: "t3.medium", KubernetesVersion: "1.35", PublicAccess: true, PublicAccessCIDRs: []string{"203.0.113.0/24"}})
		},
	}
	for name, build := range trees {
		t.Run(name, func(t *testing.T) {
			m, err := build()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tfcheck.CheckModule(m) {
				t.Error(f)
			}
			if len(m.Files) < 9 {
				t.Errorf("only %d files checked; the tree is not the plugin's", len(m.Files))
			}
		})
	}
}

func TestCheckDirSkipsHiddenDirectories(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.tf", "module \"a\" {\n  source = \"./modules/child\"\n  name   = var.name\n}\n")
	write("modules/child/main.tf", child)
	// terraform init leaves copies of modules here; they are not the tree.
	write(".terraform/modules/a/main.tf", "output \"x\" {\n  value = var.nope\n}\n")
	findings, err := tfcheck.CheckDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 1 || findings[0].String() != "main.tf:3: var.name is not declared in ." {
		t.Errorf("findings = %v, want only the undeclared var.name in main.tf", findings)
	}
}
