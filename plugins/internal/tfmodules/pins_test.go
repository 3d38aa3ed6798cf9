package tfmodules

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// pinnedLiterals are the strings only package upstream may spell: every
// version, image, digest and ref of its table.
func pinnedLiterals() []string {
	out := []string{upstream.Containerd.Version, upstream.Runc.Version, upstream.CNIPlugins.Version,
		upstream.Flannel.Version, upstream.Flannel.Source, upstream.FlannelManifestSHA256, upstream.FlannelImage.Version,
		upstream.FlannelCNIPluginImage.Version, upstream.FlannelPodCIDR, upstream.CloudControllerImage,
		upstream.EBSCSIDriver.Version}
	for _, m := range upstream.CloudControllerMinors() {
		p, _ := upstream.CloudController(m)
		out = append(out, p.Version)
	}
	return out
}

// Every pinned upstream part comes from the one table: no module file
// (scripts, templates, HCL) and no Go source of the plugins spells a
// pinned version itself (the local plugin is not AWS's and runs its own
// network). The roots' main.tf is rendered from the table,
// so it is the one file that may.
func TestNoPinnedLiteralOutsideTheTable(t *testing.T) {
	needles := pinnedLiterals()
	for name, m := range trees(t) {
		for file, data := range m.Files {
			if file == "main.tf" {
				continue
			}
			for _, n := range needles {
				if strings.Contains(string(data), n) {
					t.Errorf("%s: %s spells the pinned %q; take it from package upstream", name, file, n)
				}
			}
		}
	}
	for _, dir := range []string{"..", "../../aws-vanilla", "../../aws-eks"} {
		walkGo(t, dir, needles)
	}
}

func walkGo(t *testing.T, dir string, needles []string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
			strings.HasSuffix(p, filepath.Join("upstream", "pins.go")) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, n := range needles {
			if strings.Contains(string(data), n) {
				t.Errorf("%s spells the pinned %q; take it from package upstream", p, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Terraform takes no expression in required_providers, so every module's
// versions.tf and the rendered roots spell the AWS provider constraint:
// each must be the table's.
func TestModulesRequireThePinnedAWSProvider(t *testing.T) {
	for name, m := range trees(t) {
		seen := 0
		for file, data := range m.Files {
			if !strings.HasSuffix(file, ".tf") {
				continue
			}
			f, diags := hclsyntax.ParseConfig(data, file, hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatalf("%s: %s: %v", name, file, diags)
			}
			for _, tb := range f.Body.(*hclsyntax.Body).Blocks {
				for _, rp := range tb.Body.Blocks {
					if tb.Type != "terraform" || rp.Type != "required_providers" {
						continue
					}
					attr, ok := rp.Body.Attributes["aws"]
					if !ok {
						continue
					}
					v, diags := attr.Expr.Value(nil)
					if diags.HasErrors() || !v.Type().IsObjectType() || !v.Type().HasAttribute("version") {
						t.Errorf("%s: %s: required_providers.aws is not an object with a version", name, file)
						continue
					}
					seen++
					if got := v.GetAttr("version").AsString(); got != upstream.TerraformAWSProvider.Version {
						t.Errorf("%s: %s requires hashicorp/aws %q, the table pins %q", name, file, got, upstream.TerraformAWSProvider.Version)
					}
				}
			}
		}
		if seen == 0 {
			t.Errorf("%s: no module requires hashicorp/aws", name)
		}
	}
}
