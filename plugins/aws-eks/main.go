// Command kubeopera-provider-aws-eks creates Amazon EKS clusters with a
// managed node group.
package main

import (
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsprovider"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

func main() { sdk.Serve(awsprovider.EKS(version)) }
