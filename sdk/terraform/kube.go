package terraform

import (
	"context"
	"fmt"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// Kube is the management-cluster client Jobs and StateOutputs use: typed
// clients of just the API groups they touch (core, batch and RBAC), on
// client-go's REST client, with the call shapes of client-go's clientset.
// The clientset itself registers every built-in API group when a plugin
// starts: about 10ms and 13 MB of every plugin binary that links it.
type Kube struct {
	core, batch, rbac rest.Interface
	params            runtime.ParameterCodec
}

// kubeCodecs knows the types Kube sends and receives, made on first use:
// a plugin that runs terraform locally never needs it.
var kubeCodecs = sync.OnceValues(func() (serializer.CodecFactory, runtime.ParameterCodec) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme, rbacv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // static registrations: a failure is a programming error
		}
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(s), runtime.NewParameterCodec(s)
})

// NewKube returns a Kube for the cluster cfg reaches. Like the clientset,
// it uses cfg's QPS and Burst (client-go's defaults when unset).
func NewKube(cfg *rest.Config) (*Kube, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	codecs, params := kubeCodecs()
	k := &Kube{params: params}
	for _, g := range []struct {
		c       *rest.Interface
		gv      schema.GroupVersion
		apiPath string
	}{
		{&k.core, corev1.SchemeGroupVersion, "/api"},
		{&k.batch, batchv1.SchemeGroupVersion, "/apis"},
		{&k.rbac, rbacv1.SchemeGroupVersion, "/apis"},
	} {
		c := rest.CopyConfig(cfg)
		c.GroupVersion, c.APIPath = &g.gv, g.apiPath
		c.NegotiatedSerializer = codecs.WithoutConversion()
		if c.UserAgent == "" {
			c.UserAgent = rest.DefaultKubernetesUserAgent()
		}
		rc, err := rest.RESTClientForConfigAndClient(c, httpClient)
		if err != nil {
			return nil, fmt.Errorf("kubernetes client for %s: %w", g.gv, err)
		}
		*g.c = rc
	}
	return k, nil
}

// CoreV1 reaches the core API group.
func (k *Kube) CoreV1() CoreV1 { return CoreV1{group{k.core, k.params}} }

// BatchV1 reaches batch/v1.
func (k *Kube) BatchV1() BatchV1 { return BatchV1{group{k.batch, k.params}} }

// RbacV1 reaches rbac.authorization.k8s.io/v1.
func (k *Kube) RbacV1() RbacV1 { return RbacV1{group{k.rbac, k.params}} }

// group is one API group's REST client.
type group struct {
	c      rest.Interface
	params runtime.ParameterCodec
}

// CoreV1 has the core resources Jobs uses.
type CoreV1 struct{ group }

// ConfigMaps in namespace ns.
func (g CoreV1) ConfigMaps(ns string) Resource[*corev1.ConfigMap] {
	return Resource[*corev1.ConfigMap]{g.c, g.params, ns, "configmaps", func() *corev1.ConfigMap { return new(corev1.ConfigMap) }}
}

// Secrets in namespace ns.
func (g CoreV1) Secrets(ns string) Resource[*corev1.Secret] {
	return Resource[*corev1.Secret]{g.c, g.params, ns, "secrets", func() *corev1.Secret { return new(corev1.Secret) }}
}

// ServiceAccounts in namespace ns.
func (g CoreV1) ServiceAccounts(ns string) Resource[*corev1.ServiceAccount] {
	return Resource[*corev1.ServiceAccount]{g.c, g.params, ns, "serviceaccounts", func() *corev1.ServiceAccount { return new(corev1.ServiceAccount) }}
}

// Namespaces of the cluster.
func (g CoreV1) Namespaces() Resource[*corev1.Namespace] {
	return Resource[*corev1.Namespace]{g.c, g.params, "", "namespaces", func() *corev1.Namespace { return new(corev1.Namespace) }}
}

// Pods in namespace ns.
func (g CoreV1) Pods(ns string) Pods {
	return Pods{Resource[*corev1.Pod]{g.c, g.params, ns, "pods", func() *corev1.Pod { return new(corev1.Pod) }}}
}

// BatchV1 has Jobs.
type BatchV1 struct{ group }

// Jobs in namespace ns.
func (g BatchV1) Jobs(ns string) Resource[*batchv1.Job] {
	return Resource[*batchv1.Job]{g.c, g.params, ns, "jobs", func() *batchv1.Job { return new(batchv1.Job) }}
}

// RbacV1 has Roles and RoleBindings.
type RbacV1 struct{ group }

// Roles in namespace ns.
func (g RbacV1) Roles(ns string) Resource[*rbacv1.Role] {
	return Resource[*rbacv1.Role]{g.c, g.params, ns, "roles", func() *rbacv1.Role { return new(rbacv1.Role) }}
}

// RoleBindings in namespace ns.
func (g RbacV1) RoleBindings(ns string) Resource[*rbacv1.RoleBinding] {
	return Resource[*rbacv1.RoleBinding]{g.c, g.params, ns, "rolebindings", func() *rbacv1.RoleBinding { return new(rbacv1.RoleBinding) }}
}

// Resource is one kind of object in one namespace (or of the cluster).
type Resource[T runtime.Object] struct {
	c        rest.Interface
	params   runtime.ParameterCodec
	ns, name string
	newObj   func() T
}

// Get reads the object called name.
func (r Resource[T]) Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error) {
	out := r.newObj()
	err := r.c.Get().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(name).
		VersionedParams(&opts, r.params).Do(ctx).Into(out)
	return out, err
}

// Create creates obj and returns what the API server stored.
func (r Resource[T]) Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error) {
	out := r.newObj()
	err := r.c.Post().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).
		VersionedParams(&opts, r.params).Body(obj).Do(ctx).Into(out)
	return out, err
}

// Update replaces the object named like obj.
func (r Resource[T]) Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	meta, ok := any(obj).(metav1.Object)
	if !ok {
		return obj, fmt.Errorf("update %s: %T has no object metadata", r.name, obj)
	}
	out := r.newObj()
	err := r.c.Put().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(meta.GetName()).
		VersionedParams(&opts, r.params).Body(obj).Do(ctx).Into(out)
	return out, err
}

// Patch applies data, of type pt, to the object called name.
func (r Resource[T]) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (T, error) {
	out := r.newObj()
	err := r.c.Patch(pt).NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(name).
		VersionedParams(&opts, r.params).Body(data).Do(ctx).Into(out)
	return out, err
}

// Delete deletes the object called name.
func (r Resource[T]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return r.c.Delete().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(name).
		Body(&opts).Do(ctx).Error()
}

// Pods adds listing and logs to a Resource of Pods.
type Pods struct{ Resource[*corev1.Pod] }

// List lists the Pods opts selects.
func (p Pods) List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	out := new(corev1.PodList)
	err := p.c.Get().Namespace(p.ns).Resource("pods").VersionedParams(&opts, p.params).Do(ctx).Into(out)
	return out, err
}

// GetLogs is the request for the log of Pod name.
func (p Pods) GetLogs(name string, opts *corev1.PodLogOptions) *rest.Request {
	return p.c.Get().Namespace(p.ns).Resource("pods").Name(name).SubResource("log").VersionedParams(opts, p.params)
}
