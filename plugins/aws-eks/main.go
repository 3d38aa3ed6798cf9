// Command kubeopera-provider-aws-eks creates Amazon EKS clusters with a
// managed node group.
package main

import (
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsprovider"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

func main() {
	sdk.Serve(awsprovider.New(awsprovider.Options{
		Name:               "aws-eks",
		DisplayName:        "Amazon EKS",
		Topology:           "eks",
		Version:            version,
		MinNodes:           1,
		KubernetesVersions: []string{"1.33", "1.32", "1.31"},
	}))
}
