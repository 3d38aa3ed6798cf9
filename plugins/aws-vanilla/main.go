// Command kubeopera-provider-aws-vanilla creates self-managed kubeadm
// clusters on AWS EC2.
package main

import (
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsprovider"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

func main() { sdk.Serve(awsprovider.Vanilla(version)) }
