package awsprovider

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// inputNodeVersion carries a step's node-group minor to the module
// (EKS); it is not an input of the schema, and a module tree from
// KUBEOPERA_TERRAFORM_MODULE_DIR gets it as a variable of that name.
const inputNodeVersion = "nodeKubernetesVersion"

// Update changes a provisioned cluster (day 2) by applying its own root
// module again on its own state, as terraform runs of their own
// (generations, see terraform.Run): a scale is one apply with the new
// node count; an EKS upgrade is two, the control plane first with the
// node group left on its minor, then the node group. The steps are kept
// in the cluster's day-2 record, so Status (of this process or a
// restarted one) starts each when the one before has succeeded. The same
// request gives the same operation while its change is the latest.
func (p *Provider) Update(ctx context.Context, req sdk.UpdateRequest) (sdk.Operation, error) {
	info, _ := p.GetInfo(ctx)
	in := sdk.WithDefaults(Schema(p.opts), req.Inputs)
	if p.opts.ControlPlane && req.KubernetesVersion != "" {
		// vanilla never upgrades, so its version is its inputs'.
		if err := sdk.CheckUpgrade(info, in["kubernetesVersion"], req.KubernetesVersion); err != nil {
			return sdk.Operation{}, err
		}
	}
	if req.NodeCount != 0 {
		if err := sdk.CheckNodeCount(info, req.NodeCount); err != nil {
			return sdk.Operation{}, err
		}
	}
	if err := sdk.InvalidInput(Validate(p.opts, req.Inputs, req.Credentials)...); err != nil {
		return sdk.Operation{}, err
	}
	exec, log, err := p.day2(ctx, req.ClusterID)
	if err != nil {
		return sdk.Operation{}, err
	}
	rec, cm, err := log.load(ctx, req.ClusterID)
	if err != nil {
		return sdk.Operation{}, err
	}
	if rec == nil {
		rec = &day2Record{Applied: p.initialShape(in)}
	}
	if err := p.adoptRunningVersion(ctx, in, req.Credentials, req.ClusterID, rec); err != nil {
		return sdk.Operation{}, err
	}
	target, err := p.target(info, rec.Applied, req)
	if err != nil {
		return sdk.Operation{}, err
	}
	op := operation{Action: actionUpdate, ClusterID: req.ClusterID, Region: in["region"], Workers: target.Nodes,
		Version: target.Version, Generation: rec.Generation + 1}
	if p.opts.ControlPlane {
		op.ControlPlanes, _ = strconv.Atoi(in["controlPlaneCount"])
	}
	if c := rec.Change; c != nil {
		if same, err := parseOperation(c.Operation); err == nil && same.Workers == op.Workers && same.Version == op.Version {
			return sdk.Operation{ID: c.Operation}, p.resume(ctx, exec, rec, req.Credentials)
		}
		if err := p.refuseWhileRunning(ctx, exec, req.ClusterID, c); err != nil {
			return sdk.Operation{}, err
		}
	}
	if err := p.checkUpdateWithAWS(ctx, in, req.Credentials, rec.Applied, target); err != nil {
		return sdk.Operation{}, err
	}
	c := &change{Operation: op.String(), Started: time.Now().UTC()}
	for _, s := range p.plan(rec.Applied, target) {
		rec.Generation++
		c.Steps = append(c.Steps, step{Generation: rec.Generation, Shape: s})
	}
	rec.Inputs, rec.Change = in, c
	if err := log.save(ctx, req.ClusterID, rec, cm); err != nil {
		return sdk.Operation{}, err
	}
	return sdk.Operation{ID: c.Operation}, p.resume(ctx, exec, rec, req.Credentials)
}

// day2 is the executor of a provisioned cluster's runs and the keeper of
// its day-2 record; a cluster whose first apply has not succeeded has no
// day 2 yet.
func (p *Provider) day2(ctx context.Context, id string) (terraform.Executor, day2Log, error) {
	exec, err := p.executor.get(ctx)
	if err != nil {
		return nil, day2Log{}, err
	}
	st, err := exec.Status(ctx, id, terraform.Apply)
	if errors.Is(err, sdk.ErrNotFound) {
		return nil, day2Log{}, sdk.NotFound("cluster %q was not provisioned by this plugin (no terraform apply of it): %v", id, err)
	}
	if err != nil {
		return nil, day2Log{}, err
	}
	if st.State != sdk.Succeeded {
		return nil, day2Log{}, sdk.FailedPrecondition("cluster %q is not provisioned yet (terraform apply is %s: %s); change it once it is Ready",
			id, st.State, st.Message)
	}
	log, err := p.day2Log()
	return exec, log, err
}

// initialShape is what the provision applied, from its inputs.
func (p *Provider) initialShape(in map[string]string) shape {
	nodes, _ := strconv.Atoi(in["nodeCount"])
	minor, _, _ := p.opts.Versions.Resolve(in["kubernetesVersion"])
	return shape{Nodes: nodes, Version: minor, NodeVersion: minor}
}

// target is the shape req asks for from applied: a zero field keeps it.
func (p *Provider) target(info sdk.Info, applied shape, req sdk.UpdateRequest) (shape, error) {
	t := applied
	if req.NodeCount != 0 {
		t.Nodes = req.NodeCount
	}
	if req.KubernetesVersion == "" || sdk.SameVersion(req.KubernetesVersion, applied.Version) {
		return t, nil
	}
	if err := sdk.CheckUpgrade(info, applied.Version, req.KubernetesVersion); err != nil {
		return shape{}, err
	}
	minor, _, err := p.opts.Versions.Resolve(req.KubernetesVersion)
	if err != nil {
		return shape{}, sdk.InvalidInput(sdk.FieldError{Field: "kubernetesVersion", Message: err.Error()})
	}
	t.Version = minor
	return t, nil
}

// plan is the applies that move a cluster from applied to target: a new
// control-plane minor first, with the node group left where it is (EKS
// refuses nodes newer than their control plane), then the node group and
// the node count; nothing when they are equal.
func (p *Provider) plan(applied, target shape) []shape {
	var steps []shape
	last := applied
	if target.Version != applied.Version {
		last = shape{Nodes: target.Nodes, Version: target.Version, NodeVersion: applied.NodeVersion}
		steps = append(steps, last)
	}
	if final := (shape{Nodes: target.Nodes, Version: target.Version, NodeVersion: target.Version}); final != last {
		steps = append(steps, final)
	}
	return steps
}

// refuseWhileRunning refuses a new change while the latest one's current
// apply runs; a failed one is left where it stopped.
func (p *Provider) refuseWhileRunning(ctx context.Context, exec terraform.Executor, id string, c *change) error {
	i := c.current()
	if i < 0 {
		return nil
	}
	st, err := exec.GenerationStatus(ctx, id, c.Steps[i].Generation)
	if errors.Is(err, sdk.ErrNotFound) || err == nil && st.State == sdk.Failed {
		return nil
	}
	if err != nil {
		return err
	}
	if st.State == sdk.Succeeded { // the record is behind: only Status moves it on
		return sdk.FailedPrecondition("cluster %q has a change whose apply ended but whose operation %s was not followed to its end: "+
			"call Status on it first, then change the cluster again", id, c.Operation)
	}
	return sdk.FailedPrecondition("cluster %q is being changed (operation %s, %s); wait until it ends (follow: %s)",
		id, c.Operation, st.Message, st.Follow)
}

// resume starts the current step of the record's change: a no-op while
// it runs or once it succeeded, a new attempt after a failure.
func (p *Provider) resume(ctx context.Context, exec terraform.Executor, rec *day2Record, creds sdk.Credentials) error {
	if i := rec.Change.current(); i >= 0 {
		return p.startStep(ctx, exec, rec, i, creds)
	}
	return nil
}

// startStep starts step i of the record's change: the cluster's module
// rendered from its inputs with the step's shape.
func (p *Provider) startStep(ctx context.Context, exec terraform.Executor, rec *day2Record, i int, creds sdk.Credentials) error {
	s := rec.Change.Steps[i]
	in := maps.Clone(rec.Inputs)
	in["nodeCount"] = strconv.Itoa(s.Shape.Nodes)
	if !sdk.SameVersion(s.Shape.Version, in["kubernetesVersion"]) { // keeps a patch release the inputs name
		in["kubernetesVersion"] = s.Shape.Version
	}
	in[inputNodeVersion] = s.Shape.NodeVersion
	op, _ := parseOperation(rec.Change.Operation)
	_, inJob := exec.(terraform.Jobs)
	env, role, err := terraformAuth(ctx, creds, in["region"], inJob)
	if err != nil {
		return err
	}
	outputs, _ := exec.Outputs(ctx, op.ClusterID)
	zones, err := p.zones(ctx, creds, in, outputs, false)
	if err != nil {
		return err
	}
	module, err := p.module(op.ClusterID, in, placement{role: role, zoneIDs: zones})
	if err != nil {
		return sdk.InvalidInput(sdk.FieldError{Field: "inputs", Message: err.Error()})
	}
	return exec.Start(ctx, terraform.Run{ID: op.ClusterID, Action: terraform.Apply, Generation: s.Generation, Module: module, Env: env})
}

// checkUpdateWithAWS asks AWS, unless preflight is off or the call has
// no credentials, what only it knows about the change: that added nodes
// fit the vCPU quota and, for an EKS upgrade, that EKS offers the new
// minor and the pinned EBS CSI add-on for it.
func (p *Provider) checkUpdateWithAWS(ctx context.Context, in map[string]string, creds sdk.Credentials, applied, target shape) error {
	if len(creds) == 0 || !preflightOn() {
		return nil
	}
	cfg, err := awsapi.Config(ctx, creds, in["region"])
	if err != nil {
		return err
	}
	want := maps.Clone(in)
	want["nodeCount"], want["kubernetesVersion"] = strconv.Itoa(target.Nodes), target.Version
	var f preflight
	if target.Nodes > applied.Nodes {
		it, err := awsapi.DescribeInstanceType(ctx, cfg, in["instanceType"])
		if err != nil {
			return err
		}
		if err := f.skip(checkQuota(ctx, cfg, want, it, p.opts, &f)); err != nil {
			return err
		}
	}
	if target.Version != applied.Version {
		if err := f.skip(p.checkEKSVersion(ctx, cfg, want, &f)); err != nil {
			return err
		}
		if err := f.skip(p.checkEBSAddon(ctx, cfg, want, &f)); err != nil {
			return err
		}
	}
	// Update's fields are the request's, not the inputs'.
	for i := range f.errs {
		f.errs[i].Field = strings.TrimPrefix(f.errs[i].Field, "inputs.")
	}
	return f.result()
}
