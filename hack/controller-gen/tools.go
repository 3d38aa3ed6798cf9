//go:build tools

// Package controllergen pins controller-gen, which generates the CRDs,
// RBAC and deepcopy code of the HostCluster API (make generate).
package controllergen

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
