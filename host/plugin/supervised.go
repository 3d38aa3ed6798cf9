package plugin

import (
	"context"
	"errors"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Supervised is a provider plugin as the rest of KubeOpera sees it: an
// sdk.Provider whose calls carry the host's deadline and survive plugin
// crashes. A call in flight when its plugin dies fails with a retryable
// (sdk.KindUnavailable) error that says the provider crashed; the plugin is
// restarted and the next call goes to the new process.
type Supervised struct {
	inst *instance
}

var (
	_ sdk.Provider  = (*Supervised)(nil)
	_ sdk.Updater   = (*Supervised)(nil)
	_ sdk.Estimator = (*Supervised)(nil)
)

// Name is the provider's name.
func (s *Supervised) Name() string { return s.inst.name }

// call runs fn against the current process within the call deadline.
func (s *Supervised) call(ctx context.Context, method string, fn func(context.Context, sdk.Provider) error) error {
	if err := s.inst.refuse(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.inst.host.opts.CallTimeout)
	defer cancel()
	p, err := s.inst.acquire(ctx)
	if err != nil {
		var se *StartError
		switch {
		case errors.Is(err, errHostClosed):
			return sdk.FailedPrecondition("provider %s: %v", s.Name(), err)
		case errors.As(err, &se) && !se.Reason.transient():
			return sdk.FailedPrecondition("provider %s cannot start: %s", s.Name(), se.Detail)
		}
		return sdk.Unavailable("provider %s is not running (%v)", s.Name(), err)
	}
	err = fn(ctx, p.provider)
	p.inflight.Add(-1)
	if ctx.Err() == nil && !deadlineHit(ctx) && !errors.Is(err, context.Canceled) {
		s.inst.observe(err)
	}
	switch {
	case err == nil:
		return nil
	case deadlineHit(ctx):
		return &sdk.Error{Kind: sdk.KindDeadlineExceeded,
			Message: "provider " + s.Name() + ": " + method + " did not answer before its deadline"}
	case sdk.IsConnectionLost(err):
		why := s.inst.connectionLost(p)
		return sdk.Unavailable("provider %s crashed during %s (%s); it is being restarted, retry the call", s.Name(), method, why)
	}
	return err
}

// GetInfo implements sdk.Provider.
func (s *Supervised) GetInfo(ctx context.Context) (info sdk.Info, err error) {
	err = s.call(ctx, "GetInfo", func(ctx context.Context, p sdk.Provider) (err error) {
		info, err = p.GetInfo(ctx)
		return err
	})
	return info, err
}

// Validate implements sdk.Provider.
func (s *Supervised) Validate(ctx context.Context, req sdk.ValidateRequest) error {
	return s.call(ctx, "Validate", func(ctx context.Context, p sdk.Provider) error {
		return p.Validate(ctx, req)
	})
}

// Provision implements sdk.Provider.
func (s *Supervised) Provision(ctx context.Context, req sdk.ProvisionRequest) (op sdk.Operation, err error) {
	err = s.call(ctx, "Provision", func(ctx context.Context, p sdk.Provider) (err error) {
		op, err = p.Provision(ctx, req)
		return err
	})
	return op, err
}

// Status implements sdk.Provider.
func (s *Supervised) Status(ctx context.Context, req sdk.StatusRequest) (st sdk.OperationStatus, err error) {
	err = s.call(ctx, "Status", func(ctx context.Context, p sdk.Provider) (err error) {
		st, err = p.Status(ctx, req)
		return err
	})
	return st, err
}

// Kubeconfig implements sdk.Provider.
func (s *Supervised) Kubeconfig(ctx context.Context, req sdk.KubeconfigRequest) (kc sdk.Kubeconfig, err error) {
	err = s.call(ctx, "Kubeconfig", func(ctx context.Context, p sdk.Provider) (err error) {
		kc, err = p.Kubeconfig(ctx, req)
		return err
	})
	return kc, err
}

// Destroy implements sdk.Provider.
func (s *Supervised) Destroy(ctx context.Context, req sdk.DestroyRequest) (op sdk.Operation, err error) {
	err = s.call(ctx, "Destroy", func(ctx context.Context, p sdk.Provider) (err error) {
		op, err = p.Destroy(ctx, req)
		return err
	})
	return op, err
}

// Update implements sdk.Updater; a plugin built before the call answers
// Unimplemented.
func (s *Supervised) Update(ctx context.Context, req sdk.UpdateRequest) (op sdk.Operation, err error) {
	err = s.call(ctx, "Update", func(ctx context.Context, p sdk.Provider) (err error) {
		u, ok := p.(sdk.Updater)
		if !ok {
			return sdk.Unimplemented("provider %s cannot change a running cluster", s.Name())
		}
		op, err = u.Update(ctx, req)
		return err
	})
	return op, err
}

// deadlineHit reports whether a call failed because its deadline came. The
// plugin learns the deadline too, and its side can end the stream (RST_STREAM
// CANCEL) a moment before the host's own timer fires, so an error that
// arrives at the deadline counts, whatever the transport called it. (A
// provider's own deadline errors, long before ours, pass through as they are.)
func deadlineHit(ctx context.Context) bool {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && time.Until(dl) < 50*time.Millisecond
}

// Estimate implements sdk.Estimator; a plugin built before the call
// answers Unimplemented.
func (s *Supervised) Estimate(ctx context.Context, req sdk.EstimateRequest) (e sdk.Estimate, err error) {
	err = s.call(ctx, "Estimate", func(ctx context.Context, p sdk.Provider) (err error) {
		est, ok := p.(sdk.Estimator)
		if !ok {
			return sdk.Unimplemented("provider %s gives no cost estimate", s.Name())
		}
		e, err = est.Estimate(ctx, req)
		return err
	})
	return e, err
}
