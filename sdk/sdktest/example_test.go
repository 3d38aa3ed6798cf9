package sdktest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// The minimal example in the SDK README passes the conformance kit, and the
// README shows exactly the file that is tested.
func TestMinimalExamplePassesConformance(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kubeopera-provider-example")
	build := exec.Command("go", "build", "-o", bin, "../examples/minimal")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build example: %v\n%s", err, out)
	}
	sdktest.Run(t, sdktest.Config{Binary: bin, ValidInputs: map[string]string{"region": "eu-north-1"}})
}

func TestReadmeShowsTheTestedExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../examples/minimal/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(src)+"```") {
		t.Fatalf("sdk/README.md does not contain examples/minimal/main.go verbatim; paste the file into the README again")
	}
}

func TestReadmeShowsTheHelloExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../examples/hello/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(src)+"```") {
		t.Fatalf("sdk/README.md does not contain examples/hello/main.go verbatim; paste the file into the README again")
	}
}

// A plugin that does not use the Terraform runner compiles in no
// Kubernetes package: the SDK itself depends on none.
func TestExamplePluginCompilesInNoKubernetesPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../examples/hello").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(pkg, "k8s.io/") || strings.HasPrefix(pkg, "sigs.k8s.io/") {
			t.Errorf("the example depends on %s", pkg)
		}
	}
	if !strings.Contains(string(out), "github.com/ochestra-tech/kubeopera/sdk\n") {
		t.Fatalf("go list -deps does not list the SDK; is the path right?\n%s", out)
	}
}
