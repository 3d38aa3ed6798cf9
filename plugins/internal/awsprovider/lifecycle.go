package awsprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// terraformShare is the part of Progress terraform's own run stands for;
// the flavour's settling (a bootstrap on the machines) takes the rest.
const terraformShare = 80

// Provision renders the request's module and starts terraform apply for
// it. The same cluster ID always gives the same operation ID, and a second
// call while the run is going (or done) starts nothing.
func (p *Provider) Provision(ctx context.Context, req sdk.ProvisionRequest) (sdk.Operation, error) {
	return p.start(ctx, terraform.Apply, req.ClusterID, req.Inputs, req.Credentials)
}

// Destroy starts terraform destroy of everything Provision created, with
// the same module and state.
func (p *Provider) Destroy(ctx context.Context, req sdk.DestroyRequest) (sdk.Operation, error) {
	return p.start(ctx, terraform.Destroy, req.ClusterID, req.Inputs, req.Credentials)
}

func (p *Provider) start(ctx context.Context, action terraform.Action, id string, inputs map[string]string, creds sdk.Credentials) (sdk.Operation, error) {
	if err := sdk.InvalidInput(Validate(p.opts, inputs, creds)...); err != nil {
		return sdk.Operation{}, err
	}
	in := sdk.WithDefaults(Schema(p.opts), inputs)
	op := operation{Action: action, ClusterID: id, Region: in["region"]}
	if p.opts.ControlPlane {
		op.ControlPlanes, _ = strconv.Atoi(in["controlPlaneCount"])
		if action == terraform.Apply {
			op.Workers, _ = strconv.Atoi(in["nodeCount"])
		}
	}
	exec, err := p.executor.get(ctx)
	if err != nil {
		return sdk.Operation{}, err
	}
	_, inJob := exec.(terraform.Jobs)
	env, role, err := terraformAuth(ctx, creds, op.Region, inJob)
	if err != nil {
		return sdk.Operation{}, err
	}
	// Read before the destroy removes the outputs; no state, no relay.
	outputs, _ := exec.Outputs(ctx, id)
	zones, err := p.zones(ctx, creds, in, outputs, action == terraform.Apply)
	if err != nil {
		return sdk.Operation{}, err
	}
	module, err := p.module(id, in, placement{role: role, zoneIDs: zones})
	if err != nil {
		return sdk.Operation{}, sdk.InvalidInput(sdk.FieldError{Field: "inputs", Message: err.Error()})
	}
	if action == terraform.Destroy {
		if outputs != nil {
			op.Relay = p.flavour.relay(id, outputs)
		}
		if err := p.sweepBeforeDestroy(ctx, creds, op, in); err != nil {
			return sdk.Operation{}, err
		}
	}
	if action == terraform.Apply {
		if retried, ok, err := p.retrySettle(ctx, exec, creds, op, outputs); ok || err != nil {
			return sdk.Operation{ID: retried.String()}, err
		}
	}
	if err := exec.Start(ctx, terraform.Run{ID: id, Action: action, Module: module, Env: env}); err != nil {
		return sdk.Operation{}, err
	}
	return sdk.Operation{ID: op.String()}, nil
}

// retrySettle is a Provision asked again (the host's Retry) of a cluster
// whose apply succeeded: terraform has nothing to do, so a failed settle
// (a node's bootstrap) is what is retried, by the flavour replacing what
// failed. ok is false when the apply has not succeeded, and the run is
// started (or resumed) as usual.
func (p *Provider) retrySettle(ctx context.Context, exec terraform.Executor, creds sdk.Credentials, op operation,
	outputs map[string]json.RawMessage) (operation, bool, error) {
	st, err := exec.Status(ctx, op.ClusterID, terraform.Apply)
	if err != nil || st.State != sdk.Succeeded || outputs == nil {
		return op, false, nil
	}
	cfg, err := awsapi.Config(ctx, creds, op.Region)
	if err != nil {
		return op, true, err
	}
	if op, err = p.flavour.resume(ctx, cfg, op, outputs); err != nil {
		return op, true, err
	}
	settling, err := p.flavour.settle(ctx, cfg, op, outputs)
	if err != nil || settling == nil || settling.State != sdk.Failed {
		return op, true, err // done, or still settling: the same operation
	}
	retried, err := p.flavour.retry(ctx, cfg, op, outputs)
	return retried, true, err
}

// module is the flavour's embedded module tree, or the tree in
// KUBEOPERA_TERRAFORM_MODULE_DIR with the inputs as terraform.tfvars.json.
func (p *Provider) module(id string, in map[string]string, at placement) (terraform.Module, error) {
	dir := os.Getenv(envModuleDir)
	if dir == "" {
		return p.flavour.module(id, in, at)
	}
	m := terraform.Module{Files: map[string][]byte{}}
	err := fs.WalkDir(os.DirFS(dir), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		m.Files[path], err = os.ReadFile(dir + "/" + path)
		return err
	})
	if err != nil {
		return terraform.Module{}, fmt.Errorf("%s: %w", envModuleDir, err)
	}
	vars := map[string]string{"cluster_id": id}
	for k, v := range in {
		vars[k] = v
	}
	m.Files["terraform.tfvars.json"], _ = json.Marshal(vars)
	return m, nil
}

// Status reports the terraform run and then, for an apply, whatever the
// flavour still waits for on the machines.
func (p *Provider) Status(ctx context.Context, req sdk.StatusRequest) (sdk.OperationStatus, error) {
	op, exec, err := p.resolve(ctx, req.OperationID)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	if op.Action == actionUpdate {
		return p.updateStatus(ctx, req, op, exec)
	}
	st, err := exec.Status(ctx, op.ClusterID, op.Action)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	out := sdk.OperationStatus{OperationID: req.OperationID, State: st.State, Message: st.Message,
		Progress: st.Progress, LogTail: st.LogTail, ErrorClass: st.ErrorClass}
	if op.Action == terraform.Destroy && st.State == sdk.Succeeded {
		log, err := p.sweepLogs.get()
		if err != nil {
			return sdk.OperationStatus{}, err
		}
		return finishDestroy(ctx, req.Credentials, op, out, log)
	}
	if op.Action == terraform.Destroy && st.State == sdk.Failed && dependencyViolation(out) {
		return p.destroyAgain(ctx, req.Credentials, op, exec, out)
	}
	if op.Action == terraform.Destroy || st.State != sdk.Succeeded {
		if op.Action == terraform.Apply {
			out.Progress = st.Progress * terraformShare / 100
		}
		return out, nil
	}
	cfg, err := awsapi.Config(ctx, req.Credentials, op.Region)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	outputs, err := exec.Outputs(ctx, op.ClusterID)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	settling, err := p.flavour.settle(ctx, cfg, op, outputs)
	if err != nil || settling == nil {
		return out, err
	}
	settling.OperationID, settling.LogTail = req.OperationID, st.LogTail
	return *settling, nil
}

// Kubeconfig returns the kubeconfig KubeOpera manages a provisioned
// cluster with, found from the apply's outputs, and when it expires.
func (p *Provider) Kubeconfig(ctx context.Context, req sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	op, exec, err := p.resolve(ctx, req.OperationID)
	if err != nil {
		return sdk.Kubeconfig{}, err
	}
	if op.Action == terraform.Destroy {
		return sdk.Kubeconfig{}, sdk.FailedPrecondition("operation %s destroys a cluster: it has no kubeconfig", req.OperationID)
	}
	outputs, err := exec.Outputs(ctx, op.ClusterID)
	if err != nil {
		return sdk.Kubeconfig{}, err
	}
	cfg, err := awsapi.Config(ctx, req.Credentials, op.Region)
	if err != nil {
		return sdk.Kubeconfig{}, err
	}
	return p.flavour.kubeconfig(ctx, cfg, op, outputs)
}

// resolve finds an operation's run and the executor that knows it.
func (p *Provider) resolve(ctx context.Context, id string) (operation, terraform.Executor, error) {
	op, err := parseOperation(id)
	if err != nil {
		return operation{}, nil, err
	}
	exec, err := p.executor.get(ctx)
	return op, exec, err
}

// outputString reads a string output, naming it when missing.
func outputString(outputs map[string]json.RawMessage, name string) (string, error) {
	raw, ok := outputs[name]
	if !ok {
		return "", sdk.FailedPrecondition("the terraform state has no output %q: the module is not this plugin's", name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", sdk.FailedPrecondition("terraform output %q is not a string: %s", name, raw)
	}
	return s, nil
}
