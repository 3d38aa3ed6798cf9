//go:build tools

// Package cni pins the CNI plugins of the test node's pod network:
// hack/build-node.sh builds bridge, host-local, loopback and portmap from
// this module into bin/node/<kubernetes version>/cni/.
package cni

import (
	_ "github.com/containernetworking/plugins/plugins/ipam/host-local"
	_ "github.com/containernetworking/plugins/plugins/main/bridge"
	_ "github.com/containernetworking/plugins/plugins/main/loopback"
	_ "github.com/containernetworking/plugins/plugins/meta/portmap"
)
