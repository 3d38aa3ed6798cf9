//go:build tools

// Package k8s pins the Kubernetes binaries the sandbox runs: the control
// plane (hack/build-testbin.sh builds it into bin/k8s/<version>) and the
// test node's kubelet and kube-proxy (hack/build-node.sh builds them into
// bin/node/<version>).
package k8s

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
