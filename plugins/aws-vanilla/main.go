// Command kubeopera-provider-aws-vanilla creates self-managed kubeadm
// clusters on AWS EC2.
package main

import (
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsprovider"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

func main() {
	sdk.Serve(awsprovider.New(awsprovider.Options{
		Name:               "aws-vanilla",
		DisplayName:        "AWS (kubeadm on EC2)",
		Topology:           "kubeadm",
		Version:            version,
		ControlPlane:       true,
		MinNodes:           0,
		KubernetesVersions: []string{"1.33", "1.32", "1.31"},
	}))
}
