package hostclusters

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// GVR is the HostCluster resource (host/api/v1alpha1; CRD in config/crd).
var GVR = v1alpha1.GroupVersion.WithResource("hostclusters")

// Kube is the Registry of a server with a management cluster. It works on
// unstructured objects so the server does not depend on the controller's Go
// types.
type Kube struct {
	dyn  dynamic.Interface
	core kubernetes.Interface
	// cache, once started, answers List from memory.
	cache cache.SharedIndexInformer
	// Finalize makes Create add the controller's Finalizer, so the
	// controller's first reconcile writes only the status (the server sets
	// it). Without a controller running, a HostCluster created so is never
	// deleted, which is why it is not the default for a bare Kube.
	Finalize bool
}

// NewKube returns a Registry on the management cluster cfg points at.
func NewKube(cfg *rest.Config) (*Kube, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("management cluster client: %w", err)
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("management cluster client: %w", err)
	}
	return &Kube{dyn: dyn, core: core}, nil
}

// Create stores a connect kubeconfig in its Secret, then creates the
// HostCluster; if the HostCluster cannot be created the Secret is removed.
func (k *Kube) Create(ctx context.Context, s Spec) error {
	var made []string
	undo := func() {
		for _, name := range made {
			_ = k.core.CoreV1().Secrets(Namespace).Delete(ctx, name, metav1.DeleteOptions{})
		}
	}
	for name, data := range secretsOf(s) {
		sec := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace,
				Labels: map[string]string{v1alpha1.ClusterIDLabel: s.ID}},
			Type: corev1.SecretTypeOpaque, Data: data,
		}
		if _, err := k.core.CoreV1().Secrets(Namespace).Create(ctx, sec, metav1.CreateOptions{}); err != nil {
			undo()
			return fmt.Errorf("store Secret %s of cluster %s: %w", name, s.ID, err)
		}
		made = append(made, name)
	}
	if _, err := k.dyn.Resource(GVR).Namespace(Namespace).Create(ctx, toObject(s, k.Finalize), metav1.CreateOptions{}); err != nil {
		undo()
		return fmt.Errorf("create HostCluster %s: %w", s.ID, err)
	}
	k.awaitCached(ctx, s.ID, "")
	return nil
}

// secretsOf returns the Secrets a spec needs: the pasted kubeconfig of a
// connect, the secret inputs of a provision.
func secretsOf(s Spec) map[string]map[string][]byte {
	out := map[string]map[string][]byte{}
	if len(s.Kubeconfig) > 0 {
		out[KubeconfigSecretName(s.ID)] = map[string][]byte{KubeconfigSecretKey: s.Kubeconfig}
	}
	if len(s.SecretInputs) > 0 {
		data := map[string][]byte{}
		for k, v := range s.SecretInputs {
			data[k] = []byte(v)
		}
		out[SecretInputsName(s.ID)] = data
	}
	return out
}

func toObject(s Spec, finalize bool) *unstructured.Unstructured {
	spec := map[string]any{"mode": string(s.Mode), "provider": s.Provider, "region": s.Region}
	set := func(key, v string) {
		if v != "" {
			spec[key] = v
		}
	}
	if len(s.Kubeconfig) > 0 {
		spec["connectKubeconfigSecretRef"] = map[string]any{"name": KubeconfigSecretName(s.ID), "key": KubeconfigSecretKey}
	}
	if s.Plugin != "" {
		inputs := map[string]any{}
		for k, v := range s.Inputs {
			inputs[k] = v
		}
		prov := map[string]any{"plugin": s.Plugin, "topology": s.Topology,
			"credentialRef": s.CredentialRef, "inputs": inputs}
		if len(s.SecretInputs) > 0 {
			prov["secretInputsRef"] = SecretInputsName(s.ID)
		}
		// The CRD validates the counts as numbers; the plugin has already
		// checked that they parse.
		for _, k := range []string{"nodeCount", "controlPlaneCount"} {
			if n, err := strconv.ParseInt(s.Inputs[k], 10, 32); err == nil {
				prov[k] = n
			}
		}
		spec["provisioning"] = prov
	}
	set("displayName", s.DisplayName)
	set("gitOpsRepoURL", s.GitOpsRepoURL)
	set("gitOpsPath", s.GitOpsPath)
	set("gitCredentialsSecretRef", s.GitCredentialsSecretRef)
	set("domain", s.Domain)
	set("registryPullSecretRef", s.RegistryPullSecretRef)
	set("adminEmail", s.AdminEmail)
	set("adminUsername", s.AdminUsername)
	meta := map[string]any{"name": s.ID, "namespace": Namespace,
		"labels": map[string]any{v1alpha1.ClusterIDLabel: s.ID}}
	if finalize {
		meta["finalizers"] = []any{Finalizer}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": GVR.GroupVersion().String(),
		"kind":       "HostCluster",
		"metadata":   meta,
		"spec":       spec,
	}}
}

// Delete removes the HostCluster; the controller's finalizer cleans up.
// The answer waits for the watch cache to show the deletion.
func (k *Kube) Delete(ctx context.Context, id string) error {
	res := k.dyn.Resource(GVR).Namespace(Namespace)
	o, err := res.Get(ctx, id, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read HostCluster %s: %w", id, err)
	}
	err = res.Delete(ctx, id, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete HostCluster %s: %w", id, err)
	}
	k.awaitCached(ctx, id, o.GetResourceVersion())
	return nil
}

// EnsureNamespace creates the HostCluster namespace when missing.
func (k *Kube) EnsureNamespace(ctx context.Context) error {
	// Looked up first, so a server whose namespace the installation made
	// needs no right to create namespaces.
	_, err := k.core.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
		_, err = k.core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", Namespace, err)
	}
	return nil
}

// Kubeconfigs returns the stored kubeconfig of every cluster that has one,
// by cluster ID, in one List call: connected clusters from the start,
// provisioned ones once their provider handed one over.
func (k *Kube) Kubeconfigs(ctx context.Context) (map[string][]byte, error) {
	list, err := k.core.CoreV1().Secrets(Namespace).List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.ClusterIDLabel})
	if err != nil {
		return nil, fmt.Errorf("list kubeconfig Secrets: %w", err)
	}
	out := make(map[string][]byte, len(list.Items))
	for _, s := range list.Items {
		id := s.Labels[v1alpha1.ClusterIDLabel]
		if data := s.Data[KubeconfigSecretKey]; len(data) > 0 && s.Name == KubeconfigSecretName(id) {
			out[id] = data
		}
	}
	return out, nil
}

// Kubeconfig returns the stored kubeconfig of one cluster, nil when it has
// none yet.
func (k *Kube) Kubeconfig(ctx context.Context, id string) ([]byte, error) {
	s, err := k.core.CoreV1().Secrets(Namespace).Get(ctx, KubeconfigSecretName(id), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig Secret of %s: %w", id, err)
	}
	return s.Data[KubeconfigSecretKey], nil
}
