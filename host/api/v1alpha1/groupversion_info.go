// Package v1alpha1 is the HostCluster API (kubeopera.io/v1alpha1): one
// object per cluster KubeOpera onboards, named by its clusters.id, in
// namespace kubeopera-system. The CRD in config/crd is generated from these
// types by `make generate`.
// +kubebuilder:object:generate=true
// +groupName=kubeopera.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of HostCluster.
	GroupVersion = schema.GroupVersion{Group: "kubeopera.io", Version: "v1alpha1"}
	// SchemeBuilder registers the types of this package.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds the types of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
