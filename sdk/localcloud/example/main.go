// Command kubeopera-provider-fakecloud is a complete provider whose cloud is package localcloud: real
// API servers with simulated nodes on this machine. A real provider calls its cloud's API where this
// calls localcloud. Operation IDs name the cluster ("create:<id>", "scale-<n>:<id>", "delete:<id>").
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

type fake struct{} // stateless: every call finds its cluster again from the operation ID

var root = localcloud.DefaultRoot() // $KUBEOPERA_LOCAL_CLUSTERS_DIR, which kubeopera dev sets

var schema = []sdk.InputField{
	{Name: "nodes", Type: sdk.Int, Default: "1", Min: sdk.Bound(1), Max: sdk.Bound(5), Label: "Nodes", Help: "simulated worker nodes"},
}

func (fake) GetInfo(context.Context) (sdk.Info, error) {
	return sdk.Info{Name: "fakecloud", DisplayName: "Fake cloud (this machine)", Cloud: "fakecloud", Topologies: []string{"simulated"},
		Availability: sdk.Available, PluginVersion: "0.1.0", Schema: schema, NodeCountInput: "nodes",
		Capabilities: []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy, sdk.CapScale}}, nil
}

func (fake) Validate(_ context.Context, r sdk.ValidateRequest) error {
	return sdk.InvalidInput(sdk.CheckInputs(schema, r.Inputs)...)
}

func (f fake) Provision(ctx context.Context, r sdk.ProvisionRequest) (sdk.Operation, error) {
	if err := f.Validate(ctx, sdk.ValidateRequest{Inputs: r.Inputs}); err != nil {
		return sdk.Operation{}, err
	}
	nodes, _ := strconv.Atoi(sdk.WithDefaults(schema, r.Inputs)["nodes"])
	return sdk.Operation{ID: "create:" + r.ClusterID}, cloudError(localcloud.Create(root, localcloud.Spec{ID: r.ClusterID, Nodes: nodes}))
}

func (f fake) Update(ctx context.Context, r sdk.UpdateRequest) (sdk.Operation, error) {
	info, _ := f.GetInfo(ctx)
	if err := sdk.CheckUpgrade(info, localcloud.KubernetesVersion, cmp.Or(r.KubernetesVersion, localcloud.KubernetesVersion)); err != nil {
		return sdk.Operation{}, err
	}
	current, _ := strconv.Atoi(r.CurrentInputs["nodes"]) // the count the host last saw
	n := cmp.Or(r.NodeCount, current)
	if err := sdk.CheckNodeCount(info, n); err != nil {
		return sdk.Operation{}, err
	}
	return sdk.Operation{ID: fmt.Sprintf("scale-%d:%s", n, r.ClusterID)}, cloudError(localcloud.Scale(ctx, root, r.ClusterID, n))
}

func (fake) Status(ctx context.Context, r sdk.StatusRequest) (sdk.OperationStatus, error) {
	out := sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Running, KubernetesVersion: localcloud.KubernetesVersion}
	verb, id, _ := strings.Cut(r.OperationID, ":")
	st, err := localcloud.Inspect(root, id)
	switch {
	case verb == "delete" && errors.Is(err, localcloud.ErrNotFound):
		out.State, out.Message = sdk.Succeeded, "deleted"
	case err != nil || verb != "create" && !strings.HasPrefix(verb, "scale-"):
		return out, sdk.NotFound("no operation %q: %v", r.OperationID, err)
	case st.Phase == localcloud.Failed:
		out.State, out.ErrorClass, out.Message = sdk.Failed, sdk.Retryable, st.Message
	case st.Phase == localcloud.Ready: // done when every node asked for is Ready
		nodes, err := localcloud.CountNodes(ctx, root, id)
		out.NodeCount, out.Message = nodes.Total, fmt.Sprintf("%d of %d nodes Ready", nodes.Ready, nodes.Desired)
		if err == nil && nodes.Total == nodes.Desired && nodes.Ready == nodes.Desired {
			out.State = sdk.Succeeded
		}
	}
	return out, nil
}

func (fake) Kubeconfig(_ context.Context, r sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	data, err := localcloud.Kubeconfig(root, strings.TrimPrefix(r.OperationID, "create:"))
	return sdk.Kubeconfig{Data: data}, cloudError(err)
}

func (fake) Destroy(_ context.Context, r sdk.DestroyRequest) (sdk.Operation, error) {
	return sdk.Operation{ID: "delete:" + r.ClusterID}, cloudError(localcloud.Remove(root, r.ClusterID))
}

func cloudError(err error) error {
	if errors.Is(err, localcloud.ErrNotFound) {
		return sdk.NotFound("%v", err)
	} else if err != nil {
		return sdk.FailedPrecondition("%v", err)
	}
	return nil
}

func main() {
	localcloud.RunStarter() // Create runs this program again, detached, to boot a cluster
	sdk.Serve(fake{})
}
