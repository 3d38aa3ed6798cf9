package controller

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// callInputs returns the inputs of a plugin call: the spec's, plus the
// secret ones from the Secret spec.provisioning.secretInputsRef names. They
// exist in plain text only for the call; the HostCluster holds the
// reference.
func (r *Reconciler) callInputs(ctx context.Context, hc *v1.HostCluster) (map[string]string, error) {
	p := hc.Spec.Provisioning
	if p.SecretInputsRef == "" {
		return p.Inputs, nil
	}
	var s corev1.Secret
	if err := r.Get(ctx, client.ObjectKey{Namespace: hc.Namespace, Name: p.SecretInputsRef}, &s); err != nil {
		return nil, fmt.Errorf("read the secret inputs in Secret %s: %w", p.SecretInputsRef, err)
	}
	out := maps.Clone(p.Inputs)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range s.Data {
		out[k] = string(v)
	}
	return out, nil
}
