package awsprovider

import (
	"os/exec"
	"strings"
	"testing"
)

// The AWS plugins start as fast as their imports let them: client-go's
// clientset registers every built-in API group when a plugin starts (about
// 10 ms, and it nearly doubled the binaries every discovery hashes), so
// they reach the management cluster with terraform.Kube instead; the SSM
// service client builds its schemas at start (about 8 ms), so they call
// SSM with awsapi.SSM.
func TestAWSPluginsDoNotLinkWhatSlowsTheirStart(t *testing.T) {
	slow := map[string]string{
		"k8s.io/client-go/kubernetes":              "use terraform.Kube (sdk/terraform/kube.go)",
		"github.com/aws/aws-sdk-go-v2/service/ssm": "use awsapi.SSM (plugins/internal/awsapi/ssmwire.go)",
	}
	out, err := exec.Command("go", "list", "-deps", "../../aws-eks", "../../aws-vanilla").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if instead, ok := slow[pkg]; ok {
			t.Errorf("the AWS plugins link %s again; %s", pkg, instead)
		}
	}
}
