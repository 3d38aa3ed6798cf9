package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/host/step"
)

func ensureNamespaces(ctx context.Context, c client.Client, names ...string) error {
	for _, n := range names {
		err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s on the cluster: %w", n, err)
		}
	}
	return nil
}

// hostSecret reads a Secret the HostCluster names, in its own namespace on
// the host cluster. A missing one stalls the cluster with what to create.
func (p *Pipeline) hostSecret(ctx context.Context, hc *v1.HostCluster, name string) (*corev1.Secret, error) {
	var s corev1.Secret
	err := p.o.Management.Get(ctx, client.ObjectKey{Namespace: hc.Namespace, Name: name}, &s)
	switch {
	case apierrors.IsNotFound(err):
		return nil, step.Stall(v1.ReasonSecretMissing, "Secret %s/%s named by the HostCluster does not exist: create it, then change the HostCluster to retry", hc.Namespace, name)
	case err != nil:
		return nil, fmt.Errorf("read Secret %s/%s: %w", hc.Namespace, name, err)
	}
	return &s, nil
}

// copySecret puts the host Secret name into namespace ns on the target as
// to, type and data unchanged, replacing what is there.
func (p *Pipeline) copySecret(ctx context.Context, hc *v1.HostCluster, t *target, name, ns, to string) error {
	src, err := p.hostSecret(ctx, hc, name)
	if err != nil {
		return err
	}
	dst := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: to, Namespace: ns,
		Labels: map[string]string{v1.ClusterIDLabel: hc.Name}}, Type: src.Type, Data: src.Data}
	if err := upsert(ctx, t.client, dst); err != nil {
		return fmt.Errorf("copy Secret %s to %s/%s on the cluster: %w", name, ns, to, err)
	}
	return nil
}

func upsert(ctx context.Context, c client.Client, s *corev1.Secret) error {
	err := c.Create(ctx, s)
	if apierrors.IsAlreadyExists(err) {
		err = c.Update(ctx, s)
	}
	return err
}

// createTreeSecrets creates, on the target, the Secrets the GitOps tree
// refers to but never contains: a generated database password (the same in
// every namespace that needs it) and a credential encryption key. Existing
// ones are kept, so a re-run never changes a password a database uses.
func createTreeSecrets(ctx context.Context, c client.Client, hc *v1.HostCluster, params gitops.Params) error {
	generated := map[string]map[string][]byte{
		gitops.DatabaseSecret:      {corev1.BasicAuthUsernameKey: []byte(gitops.DatabaseUser)},
		gitops.EncryptionKeySecret: {gitops.EncryptionKeySecretKey: []byte(randomHex(32))},
	}
	for _, req := range params.RequiredSecrets() {
		data, ok := generated[req.Name]
		if !ok || req.Optional {
			continue // the pull Secret is copied with Flux; optional ones are left to the server
		}
		if req.Name == gitops.DatabaseSecret {
			pw, err := existingValue(ctx, c, req.Name, corev1.BasicAuthPasswordKey, gitops.NamespaceData, gitops.NamespaceSystem)
			if err != nil {
				return err
			}
			if pw == nil {
				pw = []byte(randomHex(24))
			}
			data[corev1.BasicAuthPasswordKey] = pw
		}
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: req.Name, Namespace: req.Namespace,
			Labels: map[string]string{v1.ClusterIDLabel: hc.Name}}, Type: req.Type, Data: data}
		if err := ensureNamespaces(ctx, c, req.Namespace); err != nil {
			return err
		}
		if err := c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create Secret %s/%s on the cluster: %w", req.Namespace, req.Name, err)
		}
	}
	return nil
}

// existingValue returns key of the first Secret name found in namespaces.
func existingValue(ctx context.Context, c client.Client, name, key string, namespaces ...string) ([]byte, error) {
	for _, ns := range namespaces {
		var s corev1.Secret
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &s)
		if err == nil && len(s.Data[key]) > 0 {
			return s.Data[key], nil
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("read Secret %s/%s on the cluster: %w", ns, name, err)
		}
	}
	return nil, nil
}

// randomHex is n random bytes as hex: URL-safe, as the tree's database URL
// needs.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on Linux (crypto/rand panics itself if it could)
	return hex.EncodeToString(b)
}
