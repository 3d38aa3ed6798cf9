package awsprovider

import (
	"context"
	"errors"
	"fmt"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// updateStatus follows an update through its record: the current step's
// terraform run, and once that succeeded, the next step started (from
// whichever process calls: the record and the runs are on the management
// cluster or the workspace, not in memory). After the last, vanilla waits
// for the workers to join (settle, counting from the update's start).
func (p *Provider) updateStatus(ctx context.Context, req sdk.StatusRequest, op operation, exec terraform.Executor) (sdk.OperationStatus, error) {
	log, err := p.day2Log()
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	rec, cm, err := log.load(ctx, op.ClusterID)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	if rec == nil || rec.Change == nil || rec.Change.Operation != req.OperationID {
		return sdk.OperationStatus{}, sdk.NotFound("operation %s is not the latest change of cluster %q (a newer Update replaced it, or its record %s was deleted)",
			req.OperationID, op.ClusterID, day2LogName(op.ClusterID))
	}
	c := rec.Change
	op.Started = c.Started
	i := c.current()
	if i < 0 {
		return p.updateDone(ctx, req, op, exec, rec)
	}
	st, err := exec.GenerationStatus(ctx, op.ClusterID, c.Steps[i].Generation)
	switch {
	case errors.Is(err, sdk.ErrNotFound): // recorded, never started: the call that should have died
		if err := p.startStep(ctx, exec, rec, i, req.Credentials); err != nil {
			return sdk.OperationStatus{}, err
		}
		return p.stepStatus(req.OperationID, c, i, terraform.Status{State: sdk.Pending, Message: "terraform apply: starting"}), nil
	case err != nil:
		return sdk.OperationStatus{}, err
	case st.State != sdk.Succeeded:
		return p.stepStatus(req.OperationID, c, i, st), nil
	}
	c.Steps[i].Done, rec.Applied = true, c.Steps[i].Shape
	if err := log.save(ctx, op.ClusterID, rec, cm); err != nil {
		return sdk.OperationStatus{}, err
	}
	if i+1 == len(c.Steps) {
		return p.updateDone(ctx, req, op, exec, rec)
	}
	if err := p.startStep(ctx, exec, rec, i+1, req.Credentials); err != nil {
		return sdk.OperationStatus{}, err
	}
	return p.stepStatus(req.OperationID, c, i+1, terraform.Status{State: sdk.Pending, Message: "terraform apply: starting"}), nil
}

// stepStatus reports step i of c from its terraform run: which apply of
// how many, what it sets, and where to read its log.
func (p *Provider) stepStatus(opID string, c *change, i int, st terraform.Status) sdk.OperationStatus {
	share := 100
	if p.opts.ControlPlane {
		share = terraformShare // the workers' join follows
	}
	n := len(c.Steps)
	out := sdk.OperationStatus{OperationID: opID, State: st.State, ErrorClass: st.ErrorClass, LogTail: st.LogTail,
		Progress: (i*100 + st.Progress) * share / (100 * n)}
	where := ""
	if st.Follow != "" {
		where = "; follow: " + st.Follow
	}
	out.Message = fmt.Sprintf("step %d of %d (%s): %s%s", i+1, n, p.describe(c.Steps[i].Shape), st.Message, where)
	if st.State == sdk.Failed {
		out.Message = fmt.Sprintf("step %d of %d (%s) failed, the cluster is as the step before left it: %s%s",
			i+1, n, p.describe(c.Steps[i].Shape), st.Message, where)
	}
	return out
}

// describe says what a step's apply sets.
func (p *Provider) describe(s shape) string {
	if p.opts.ControlPlane {
		return fmt.Sprintf("%d workers", s.Nodes)
	}
	if s.NodeVersion != s.Version {
		return fmt.Sprintf("control plane to Kubernetes %s, node group stays on %s, %d nodes", s.Version, s.NodeVersion, s.Nodes)
	}
	return fmt.Sprintf("control plane and node group on Kubernetes %s, %d nodes", s.Version, s.Nodes)
}

// updateDone reports a change whose applies all succeeded: done, once
// the flavour has nothing left to wait for (vanilla: the workers joined).
func (p *Provider) updateDone(ctx context.Context, req sdk.StatusRequest, op operation, exec terraform.Executor, rec *day2Record) (sdk.OperationStatus, error) {
	cfg, err := awsapi.Config(ctx, req.Credentials, op.Region)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	outputs, err := exec.Outputs(ctx, op.ClusterID)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	op.Workers = rec.Applied.Nodes
	settling, err := p.flavour.settle(ctx, cfg, op, outputs)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	if settling != nil {
		settling.OperationID = req.OperationID
		return *settling, nil
	}
	return sdk.OperationStatus{OperationID: req.OperationID, State: sdk.Succeeded, Progress: 100,
		Message:   fmt.Sprintf("%d nodes, Kubernetes %s (%d terraform applies)", rec.Applied.Nodes, rec.Applied.Version, len(rec.Change.Steps)),
		NodeCount: rec.Applied.Nodes, KubernetesVersion: rec.Applied.Version}, nil
}
