//go:build tools

// Package k8s pins the Kubernetes control-plane binaries the sandbox runs:
// hack/build-k8s.sh builds them from this module into bin/k8s/<version>.
package k8s

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
