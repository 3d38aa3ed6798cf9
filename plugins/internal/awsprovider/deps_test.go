package awsprovider

import (
	"os/exec"
	"strings"
	"testing"
)

// The AWS plugins start as fast as their imports let them: client-go's
// clientset registers every built-in API group when a plugin starts (about
// 10 ms, and it nearly doubled the binaries every discovery hashes), so
// they reach the management cluster with terraform.Kube instead.
func TestAWSPluginsDoNotLinkTheClientset(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../aws-eks", "../../aws-vanilla").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "k8s.io/client-go/kubernetes" {
			t.Errorf("the AWS plugins link %s again; use terraform.Kube (sdk/terraform/kube.go)", pkg)
		}
	}
}
