package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// provider is stateless: every call finds its cluster again from the
// cluster's directory.
type provider struct{}

var schema = []sdk.InputField{
	{Name: "nodeCount", Type: sdk.Int, Default: "2", Min: sdk.Bound(1), Max: sdk.Bound(10), Help: "number of simulated worker nodes"},
}

// The operation IDs name the cluster: nothing to remember between calls.
const (
	provisionPrefix = "local-provision-"
	destroyPrefix   = "local-destroy-"
	// scalePrefix is followed by the node count, "-" and the cluster ID.
	scalePrefix = "local-scale-"
)

// GetInfo declares scale but not upgrade: the sandbox has the binaries of
// one Kubernetes version (localcloud.KubernetesVersion) only.
func (provider) GetInfo(context.Context) (sdk.Info, error) {
	return sdk.Info{Name: "local", DisplayName: "Local sandbox (development only)", Cloud: "local",
		Topologies: []string{"sandbox"}, Availability: sdk.Available, PluginVersion: version, Schema: schema,
		NodeCountInput: "nodeCount",
		Capabilities: []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy,
			sdk.CapScale}}, nil
}

func (provider) Validate(_ context.Context, r sdk.ValidateRequest) error {
	return sdk.InvalidInput(sdk.CheckInputs(schema, r.Inputs)...)
}

func (p provider) Provision(ctx context.Context, r sdk.ProvisionRequest) (sdk.Operation, error) {
	if err := p.Validate(ctx, sdk.ValidateRequest{Inputs: r.Inputs}); err != nil {
		return sdk.Operation{}, err
	}
	if err := localcloud.CheckID(r.ClusterID); err != nil {
		return sdk.Operation{}, sdk.InvalidInput(sdk.FieldError{Field: "clusterID", Message: err.Error()})
	}
	bin, err := binDir()
	if err != nil {
		return sdk.Operation{}, sdk.FailedPrecondition("%v", err)
	}
	nodes, _ := strconv.Atoi(sdk.WithDefaults(schema, r.Inputs)["nodeCount"])
	spec := localcloud.Spec{ID: r.ClusterID, Nodes: nodes, BinDir: bin}
	if err := localcloud.Create(root(), spec); err != nil {
		return sdk.Operation{}, err
	}
	return sdk.Operation{ID: provisionPrefix + r.ClusterID}, nil
}

func (provider) Status(ctx context.Context, r sdk.StatusRequest) (sdk.OperationStatus, error) {
	out := sdk.OperationStatus{OperationID: r.OperationID}
	if id, ok := strings.CutPrefix(r.OperationID, destroyPrefix); ok {
		// Destroy is done when it returns: a cluster without a directory is gone.
		if _, err := localcloud.Inspect(root(), id); !errors.Is(err, localcloud.ErrNotFound) {
			out.State, out.Message = sdk.Running, "stopping the cluster's processes"
			return out, nil
		}
		out.State, out.Message, out.Progress = sdk.Succeeded, "cluster removed", 100
		return out, nil
	}
	if rest, ok := strings.CutPrefix(r.OperationID, scalePrefix); ok {
		return scaleStatus(ctx, out, rest)
	}
	id, ok := strings.CutPrefix(r.OperationID, provisionPrefix)
	if !ok {
		return out, sdk.NotFound("no local operation %q", r.OperationID)
	}
	st, err := localcloud.Inspect(root(), id)
	if errors.Is(err, localcloud.ErrNotFound) {
		return out, sdk.NotFound("%v", err)
	}
	if err != nil {
		return out, err
	}
	out.Message, out.Progress = st.Message, st.Progress
	switch st.Phase {
	case localcloud.Ready:
		out.State, out.KubernetesVersion = sdk.Succeeded, localcloud.KubernetesVersion
		if n, err := localcloud.CountNodes(ctx, root(), id); err == nil {
			out.NodeCount = n.Total
		}
	case localcloud.Failed:
		out.State, out.ErrorClass = sdk.Failed, sdk.Retryable
	default:
		out.State = sdk.Running
	}
	return out, nil
}

func (provider) Kubeconfig(_ context.Context, r sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	id, ok := strings.CutPrefix(r.OperationID, provisionPrefix)
	if !ok {
		return sdk.Kubeconfig{}, sdk.NotFound("no local operation %q", r.OperationID)
	}
	kc, err := localcloud.Kubeconfig(root(), id)
	if errors.Is(err, localcloud.ErrNotFound) {
		return sdk.Kubeconfig{}, sdk.NotFound("%v", err)
	}
	if err != nil {
		return sdk.Kubeconfig{}, sdk.FailedPrecondition("%v", err)
	}
	return sdk.Kubeconfig{Data: kc}, nil
}

// Destroy stops the cluster and removes its directory before it returns
// (a matter of seconds); Status of the operation then says Succeeded.
func (provider) Destroy(_ context.Context, r sdk.DestroyRequest) (sdk.Operation, error) {
	if err := localcloud.CheckID(r.ClusterID); err != nil {
		return sdk.Operation{}, sdk.InvalidInput(sdk.FieldError{Field: "clusterID", Message: err.Error()})
	}
	if err := localcloud.Remove(root(), r.ClusterID); err != nil {
		return sdk.Operation{}, err
	}
	return sdk.Operation{ID: destroyPrefix + r.ClusterID}, nil
}

// root is the directory of the local clusters.
func root() string { return localcloud.DefaultRoot() }

// binDir finds the sandbox binaries: KUBEOPERA_TESTBIN_DIR, else
// ../k8s/<version> from the plugin's directory (bin/plugins next to
// bin/k8s), else the repository's bin/k8s/<version>.
func binDir() (string, error) {
	if os.Getenv(localcloud.TestbinEnv) == "" {
		if self, err := os.Executable(); err == nil {
			dir := filepath.Join(filepath.Dir(self), "..", "k8s", localcloud.KubernetesVersion)
			if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err == nil {
				return filepath.Abs(dir)
			}
		}
	}
	return localcloud.BinDir()
}
