package controller

import (
	"sigs.k8s.io/controller-runtime/pkg/cache"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// Cache is the manager's cache for the controller: it lists and watches
// kubeopera-system only, where the server puts HostClusters and the
// Secrets they name, as the controller's Roles allow. Without it the
// cache would watch (and hold in memory) every Secret of the management
// cluster as soon as the controller read one.
func Cache() cache.Options {
	return cache.Options{DefaultNamespaces: map[string]cache.Config{v1.Namespace: {}}}
}
