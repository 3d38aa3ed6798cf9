package controller

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// This file is the one way a plugin operation runs, for provision, update
// (scale, upgrade) and teardown alike: resolve the plugin and the
// credential (pluginFor), start the operation once with its ID kept in an
// annotation so a restarted controller resumes it, and poll its Status
// (follow). What a caller does with the outcome (which condition, which
// remedy in the message) stays with the caller.

// refused is a plugin operation that cannot go on until the user acts:
// no such plugin, a credential gone, a call the plugin refused or an
// operation it forgot. Reason is a v1 reason; Message says what, without
// the remedy (which depends on the operation).
type refused struct {
	Reason  string
	Message string
}

func (e *refused) Error() string { return e.Message }

// pluginFor resolves the cluster's provider plugin and, when it names one,
// its stored cloud credential (a provider that takes none, like local,
// gets none). A credential store that cannot be read is retried.
func (r *Reconciler) pluginFor(ctx context.Context, hc *v1.HostCluster, what string) (sdk.Provider, sdk.Credentials, error) {
	p := hc.Spec.Provisioning
	prov, err := r.Providers.Provider(p.Plugin)
	if err != nil {
		return nil, nil, &refused{v1.ReasonNoSuchProvider, what + err.Error()}
	}
	if p.CredentialRef == "" {
		return prov, nil, nil
	}
	creds, err := r.Credentials.Resolve(ctx, p.CredentialRef)
	switch {
	case errors.Is(err, sdk.ErrNotFound):
		return nil, nil, &refused{v1.ReasonCredentialMissing, fmt.Sprintf("%scloud credential %s: %v", what, p.CredentialRef, err)}
	case err != nil: // the database or key may be back on the next try
		return nil, nil, step.Retry(r.PollInterval, "%scloud credential %s cannot be read yet: %v", what, p.CredentialRef, err)
	}
	return prov, creds, nil
}

// operation is one plugin operation to follow.
type operation struct {
	// call names the starting call in messages: Provision, Update, Destroy.
	call string
	// annotation keeps the operation's ID on the HostCluster.
	annotation string
	// what prefixes every message, e.g. "tearing down: ".
	what string
	// start starts the operation; it is called only while annotation is
	// empty.
	start func(ctx context.Context) (sdk.Operation, error)
	// also are annotations written together with the operation's ID.
	also map[string]string
}

// follow starts op once (its ID written to the annotation before anything
// else happens) and reads its Status. It returns the status once the
// operation is SUCCEEDED or FAILED; a step.Waiting while it runs or the
// plugin is unreachable; a *refused when the plugin refused the call or
// forgot the operation.
func (r *Reconciler) follow(ctx context.Context, hc *v1.HostCluster, prov sdk.Provider, creds sdk.Credentials, op operation) (sdk.OperationStatus, error) {
	plugin := hc.Spec.Provisioning.Plugin
	id := hc.Annotations[op.annotation]
	if id == "" {
		started, err := op.start(ctx)
		if err != nil {
			return sdk.OperationStatus{}, r.callError(op, plugin, op.call, err)
		}
		set := map[string]*string{op.annotation: &started.ID}
		for k, v := range op.also {
			set[k] = &v
		}
		if err := r.annotate(ctx, hc, set); err != nil {
			return sdk.OperationStatus{}, err
		}
		id = started.ID
	}
	st, err := prov.Status(ctx, sdk.StatusRequest{OperationID: id, Credentials: creds})
	if err != nil {
		return st, r.callError(op, plugin, "Status", err)
	}
	if st.State == sdk.Succeeded || st.State == sdk.Failed {
		return st, nil
	}
	return st, step.Wait(r.PollInterval, "%s%s: %s (%d%%)", op.what, plugin, st.Message, st.Progress)
}

// callError: a crashed, restarting or unavailable plugin is retried, and
// so is a panic in Status (a read that may well pass next time; the
// plugin host counts it and shows the plugin degraded after three in a
// row, then backs off); a forgotten operation and a refused call need the
// user.
func (r *Reconciler) callError(op operation, plugin, call string, err error) error {
	var waiting *step.Waiting
	switch {
	case errors.As(err, &waiting): // start's own preparation waits
		return err
	case sdk.IsRetryable(err), call == "Status" && sdk.KindOf(err) == sdk.KindInternal:
		return step.Retry(r.PollInterval, "%s%s: %s failed: %v", op.what, plugin, call, err)
	case errors.Is(err, sdk.ErrNotFound) && call == "Status":
		return &refused{v1.ReasonOperationLost, fmt.Sprintf("%s%s: %s: %v", op.what, plugin, call, err)}
	}
	return &refused{"", fmt.Sprintf("%s%s: %s: %v", op.what, plugin, call, err)}
}

// annotate sets (or, for nil, removes) annotations on hc with a patch,
// keeping the status this reconcile has made so far.
func (r *Reconciler) annotate(ctx context.Context, hc *v1.HostCluster, set map[string]*string) error {
	patch := client.MergeFrom(hc.DeepCopy())
	if hc.Annotations == nil {
		hc.Annotations = map[string]string{}
	}
	for k, v := range set {
		if v == nil {
			delete(hc.Annotations, k)
		} else {
			hc.Annotations[k] = *v
		}
	}
	status := hc.Status.DeepCopy()
	if err := r.Patch(ctx, hc, patch); err != nil {
		return fmt.Errorf("record annotations on HostCluster %s: %w", hc.Name, err)
	}
	hc.Status = *status // the answer carries the stored status, not this reconcile's
	return nil
}
