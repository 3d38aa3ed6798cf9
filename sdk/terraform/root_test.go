package terraform

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/zclconf/go-cty/cty"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenRoot exercises every part of Root: required providers, a provider
// block, the backend, module inputs of each kind, references between
// modules and a sensitive output.
func goldenRoot() Root {
	return Root{
		RequiredProviders: map[string]ProviderRequirement{
			"aws":  {Source: "hashicorp/aws", Version: "~> 5.0"},
			"helm": {Source: "hashicorp/helm", Version: ">= 2.12"},
			"tls":  {Source: "hashicorp/tls"}, // no constraint: no version attribute
		},
		Providers: []Provider{{Name: "aws",
			Attributes: map[string]cty.Value{"region": cty.StringVal("eu-north-1")},
			Blocks: []Block{
				{Type: "default_tags", Attributes: map[string]cty.Value{
					"tags": cty.MapVal(map[string]cty.Value{"kubeopera.io/cluster-id": cty.StringVal("c-123")}),
				}},
				{Type: "assume_role", Attributes: map[string]cty.Value{
					"role_arn": cty.StringVal("arn:aws:iam::123456789012:role/kubeopera"),
				}},
			},
		}},
		Backend: "kubernetes",
		Modules: []ModuleCall{
			{Name: "vpc", Source: "./modules/vpc", Inputs: map[string]cty.Value{
				"name":       cty.StringVal("prod-eu"),
				"cidr_block": cty.StringVal("10.0.0.0/16"),
				"az_count":   cty.NumberIntVal(3),
				"zones":      cty.ListVal([]cty.Value{cty.StringVal("eu-north-1a"), cty.StringVal("eu-north-1b")}),
				"tags":       cty.MapVal(map[string]cty.Value{"team": cty.StringVal("platform"), "env": cty.StringVal("prod")}),
			}},
			{Name: "eks", Source: "./modules/eks",
				Inputs: map[string]cty.Value{"kubernetes_version": cty.StringVal("1.31"), "node_count": cty.NumberIntVal(2)},
				References: map[string]string{
					"vpc_id":     "module.vpc.vpc_id",
					"subnet_ids": "module.vpc.private_subnet_ids",
					"first_zone": "module.vpc.zones[0]",
				}},
		},
		Outputs: []Output{
			{Name: "endpoint", Expr: "module.eks.endpoint"},
			{Name: "kubeconfig", Expr: "module.eks.kubeconfig", Sensitive: true},
		},
	}
}

func TestRenderRootMatchesGoldenFile(t *testing.T) {
	got, err := RenderRoot(goldenRoot())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "root.golden.tf")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestRenderRoot -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("RenderRoot output differs from %s (rerun with -update if the change is intended):\n%s", golden, got)
	}
	again, _ := RenderRoot(goldenRoot())
	if !bytes.Equal(got, again) {
		t.Error("RenderRoot is not deterministic")
	}
}

func TestRenderRootPassesTerraformFmtCheck(t *testing.T) {
	got, err := RenderRoot(goldenRoot())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), got, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(terraformBinary(t), "fmt", "-check", "-diff", "-no-color", "main.tf")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("terraform fmt -check: %v\n%s", err, out)
	}
}

func TestRenderRootRejectsExpressionsThatAreNotReferences(t *testing.T) {
	for name, expr := range map[string]string{
		"arithmetic":    "module.vpc.count + 1",
		"function call": `file("/etc/passwd")`,
		"template":      `"${module.vpc.id}"`,
		"empty":         "",
		"trailing junk": "module.vpc.id }\nresource",
	} {
		t.Run(name, func(t *testing.T) {
			r := Root{Modules: []ModuleCall{{Name: "eks", Source: "./modules/eks", References: map[string]string{"vpc_id": expr}}}}
			if _, err := RenderRoot(r); err == nil || !strings.Contains(err.Error(), "module eks input vpc_id") {
				t.Errorf("module reference %q: got error %v, want one naming module eks input vpc_id", expr, err)
			}
			r = Root{Outputs: []Output{{Name: "endpoint", Expr: expr}}}
			if _, err := RenderRoot(r); err == nil || !strings.Contains(err.Error(), "output endpoint") {
				t.Errorf("output %q: got error %v, want one naming output endpoint", expr, err)
			}
		})
	}
}

func TestNewModulePutsRootAtMainTFAndChildrenUnderModules(t *testing.T) {
	children := fstest.MapFS{
		"vpc/main.tf":          {Data: []byte("# vpc")},
		"vpc/files/user-data":  {Data: []byte("#!/bin/sh")},
		"eks/main.tf":          {Data: []byte("# eks")},
		"unused/main.tf":       {Data: []byte("# not asked for")},
		"vpc/nested/deep/x.tf": {Data: []byte("# deep")},
	}
	m, err := NewModule([]byte("# root"), children, "vpc", "eks")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"main.tf": "# root", "modules/vpc/main.tf": "# vpc", "modules/vpc/files/user-data": "#!/bin/sh",
		"modules/vpc/nested/deep/x.tf": "# deep", "modules/eks/main.tf": "# eks",
	}
	if len(m.Files) != len(want) {
		t.Errorf("files %v, want %v", sortedKeys(m.Files), sortedKeys(want))
	}
	for p, data := range want {
		if string(m.Files[p]) != data {
			t.Errorf("%s = %q, want %q", p, m.Files[p], data)
		}
	}
	if _, err := NewModule(nil, children, "missing"); err == nil || !strings.Contains(err.Error(), "module missing") {
		t.Errorf("a missing module directory: got %v, want an error naming it", err)
	}
}

// terraformBinary is the real terraform the tests run.
func terraformBinary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatalf("these tests need the terraform binary on PATH: %v", err)
	}
	return p
}
