package tfmodules

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const testClusterID = "3f2a9c1e-7b4d-4e8a-9f00-0a1b2c3d4e5f"

func vanillaInput(controlPlanes int) VanillaInput {
	return VanillaInput{ClusterID: testClusterID, Region: "eu-north-1", ControlPlaneCount: controlPlanes,
		NodeCount: 2, InstanceType: "t3.medium", KubernetesVersion: "1.36", APIAllowedCIDRs: []string{"203.0.113.0/24"}}
}

func eksInput() EKSInput {
	return EKSInput{ClusterID: testClusterID, Region: "eu-north-1", NodeCount: 2,
		InstanceType: "t3.medium", KubernetesVersion: "1.36", AZCount: 3,
		PublicAccess: true, PrivateAccess: true, PublicAccessCIDRs: []string{"203.0.113.0/24", "198.51.100.7/32"}}
}

// trees are the module trees the tests check, by golden file name.
func trees(t *testing.T) map[string]terraform.Module {
	t.Helper()
	out := map[string]terraform.Module{}
	for name, build := range map[string]func() (terraform.Module, error){
		"vanilla-1": func() (terraform.Module, error) {
			in := vanillaInput(1)
			in.KubernetesPatch = "1.36.2"
			return Vanilla(in)
		},
		"vanilla-3": func() (terraform.Module, error) { return Vanilla(vanillaInput(3)) },
		"eks":       func() (terraform.Module, error) { return EKS(eksInput()) },
	} {
		m, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = m
	}
	return out
}

func TestRootModulesMatchGoldenFiles(t *testing.T) {
	for name, m := range trees(t) {
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join("testdata", name+".golden")
			got := m.Files["main.tf"]
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("rendered root differs from %s (go test -update rewrites it):\n%s", golden, got)
			}
		})
	}
}

func TestModuleTreesHoldWhatTheRootCalls(t *testing.T) {
	want := map[string][]string{
		"vanilla-3": {"modules/vpc/main.tf", "modules/security/main.tf", "modules/compute/main.tf",
			"modules/compute/lb.tf", "modules/bootstrap/main.tf", "modules/bootstrap/header.sh.tftpl", "modules/bootstrap/lib.sh"},
		"eks": {"modules/vpc/main.tf", "modules/eks/main.tf"},
	}
	all := trees(t)
	for name, files := range want {
		for _, f := range files {
			if _, ok := all[name].Files[f]; !ok {
				t.Errorf("%s: module tree lacks %s", name, f)
			}
		}
	}
	for f := range all["eks"].Files {
		if strings.HasPrefix(f, "modules/compute/") || strings.HasPrefix(f, "modules/bootstrap/") {
			t.Errorf("eks: module tree carries %s, which it never calls", f)
		}
	}
}

func TestModuleTreesAreTerraformFmtClean(t *testing.T) {
	for name, m := range trees(t) {
		dir := writeTree(t, m)
		out, err := runTerraform(t, dir, "fmt", "-check", "-recursive", "-diff")
		if err != nil {
			t.Errorf("%s: terraform fmt -check: %v\n%s", name, err, out)
		}
	}
}

func TestInputsThatCannotBeRenderedAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"uppercase cluster ID", func() error {
			in := vanillaInput(1)
			in.ClusterID = "Prod"
			_, err := Vanilla(in)
			return err
		}, `cluster ID "Prod": use at most 40 lowercase letters`},
		{"cluster ID too long for IAM role names", func() error {
			in := vanillaInput(1)
			in.ClusterID = strings.Repeat("a", 41)
			_, err := Vanilla(in)
			return err
		}, "use at most 40"},
		{"region with a quote", func() error {
			in := vanillaInput(1)
			in.Region = `eu-north-1"`
			_, err := Vanilla(in)
			return err
		}, "is not an AWS region name"},
		{"no control plane", func() error { _, err := Vanilla(vanillaInput(0)); return err }, "control plane count 0"},
		{"patch version", func() error {
			in := vanillaInput(1)
			in.KubernetesVersion = "1.36.1"
			_, err := Vanilla(in)
			return err
		}, "use a minor version such as 1.36"},
		{"patch of another minor", func() error {
			in := vanillaInput(1)
			in.KubernetesPatch = "1.35.1"
			_, err := Vanilla(in)
			return err
		}, `kubernetes patch "1.35.1": use a release of 1.36`},
		{"vanilla API open to nobody", func() error {
			in := vanillaInput(1)
			in.APIAllowedCIDRs = nil
			_, err := Vanilla(in)
			return err
		}, "no CIDR may reach the API"},
		{"EKS public endpoint open to nobody", func() error {
			in := eksInput()
			in.PublicAccessCIDRs = nil
			_, err := EKS(in)
			return err
		}, "no CIDR may reach the API"},
		{"EKS without any endpoint", func() error {
			in := eksInput()
			in.PublicAccess, in.PrivateAccess = false, false
			_, err := EKS(in)
			return err
		}, "needs a public or a private endpoint"},
		{"EKS in one zone", func() error {
			in := eksInput()
			in.AZCount = 1
			_, err := EKS(in)
			return err
		}, "EKS needs at least 2"},
		{"EKS without nodes", func() error {
			in := eksInput()
			in.NodeCount = 0
			_, err := EKS(in)
			return err
		}, "node count 0: use at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// writeTree writes a module tree to a temporary directory.
func writeTree(t *testing.T, m terraform.Module) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range m.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runTerraform runs the real terraform offline (no CLI config, no update
// check) and returns its combined output.
func runTerraform(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatalf("terraform is not on PATH (expected /usr/local/bin/terraform): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=/dev/null", "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("terraform %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// unaligned undoes hclwrite's alignment of "=" signs, which moves every
// argument of a block when one longer name is added.
func unaligned(hcl string) string { return alignedRE.ReplaceAllString(hcl, " = ") }

var alignedRE = regexp.MustCompile(` += +`)
