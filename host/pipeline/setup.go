package pipeline

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
)

// setupSecret returns the cluster's first-admin setup secret, kept on the
// host in Secret SetupSecretName; the first call generates it.
func (p *Pipeline) setupSecret(ctx context.Context, hc *v1.HostCluster) ([]byte, error) {
	name := v1.SetupSecretName(hc.Name)
	s := &corev1.Secret{}
	err := p.o.Reader.Get(ctx, client.ObjectKey{Namespace: hc.Namespace, Name: name}, s)
	if err == nil && len(s.Data[v1.SetupSecretKey]) > 0 {
		return s.Data[v1.SetupSecretKey], nil
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("read Secret %s: %w", name, err)
	}
	s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: hc.Namespace,
		Labels: map[string]string{v1.ClusterIDLabel: hc.Name}},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{v1.SetupSecretKey: []byte(randomHex(32))}}
	if err := p.o.Management.Create(ctx, s); err != nil {
		if apierrors.IsAlreadyExists(err) { // another reconcile made it: use that one
			return p.setupSecret(ctx, hc)
		}
		return nil, fmt.Errorf("store the setup secret in Secret %s: %w", name, err)
	}
	return s.Data[v1.SetupSecretKey], nil
}

// putSetupSecret writes the setup secret on the target as the Secret the
// tree's server reads (KUBEOPERA_SETUP_SECRET), replacing another value.
func putSetupSecret(ctx context.Context, c client.Client, hc *v1.HostCluster, value []byte) error {
	if err := ensureNamespaces(ctx, c, gitops.NamespaceSystem); err != nil {
		return err
	}
	s := &corev1.Secret{}
	key := client.ObjectKey{Namespace: gitops.NamespaceSystem, Name: gitops.SetupSecret}
	err := c.Get(ctx, key, s)
	switch {
	case apierrors.IsNotFound(err):
		s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace,
			Labels: map[string]string{v1.ClusterIDLabel: hc.Name}},
			Type: corev1.SecretTypeOpaque, Data: map[string][]byte{gitops.SetupSecretKey: value}}
		err = c.Create(ctx, s)
	case err == nil && !bytes.Equal(s.Data[gitops.SetupSecretKey], value):
		s.Data = map[string][]byte{gitops.SetupSecretKey: value}
		err = c.Update(ctx, s)
	}
	if err != nil {
		return fmt.Errorf("write Secret %s/%s on the cluster: %w", key.Namespace, key.Name, err)
	}
	return nil
}
