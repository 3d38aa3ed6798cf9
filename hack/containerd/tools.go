//go:build tools

// Package containerd pins the container runtime of the test node:
// hack/build-node.sh builds containerd, its runc shim and ctr from this
// module into bin/node/<kubernetes version>/.
package containerd

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
