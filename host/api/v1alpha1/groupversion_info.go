// Package v1alpha1 is the HostCluster API (kubeopera.io/v1alpha1): one
// object per cluster KubeOpera onboards, named by its clusters.id, in
// namespace kubeopera-system. The CRD in config/crd is generated from these
// types by `make generate`.
// +kubebuilder:object:generate=true
// +groupName=kubeopera.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the API group and version of HostCluster.
	GroupVersion = schema.GroupVersion{Group: "kubeopera.io", Version: "v1alpha1"}
	// SchemeBuilder registers the types of this package.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the types of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers HostCluster and its list with their group and
// version (with apimachinery's builder: controller-runtime's is deprecated
// and would pull controller-runtime into every importer of this package).
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &HostCluster{}, &HostClusterList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
