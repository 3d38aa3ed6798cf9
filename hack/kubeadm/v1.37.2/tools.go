//go:build tools

// Package kubeadm pins the kubeadm the upstream checks run kubeadm config
// validate with: hack/build-kubeadm.sh builds it into bin/kubeadm/v1.37.2.
package kubeadm

import _ "k8s.io/kubernetes/cmd/kubeadm"
