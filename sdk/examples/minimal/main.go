// Command kubeopera-provider-example is the smallest complete provider: it
// "provisions" nothing, deterministically, so it passes the conformance kit.
package main

import (
	"context"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
)

type example struct{}

var schema = []sdk.InputField{
	{Name: "region", Type: sdk.String, Required: true, Help: "where the cluster goes"},
	{Name: "nodeCount", Type: sdk.Int, Default: "2", Help: "number of worker nodes"},
}

func (example) GetInfo(context.Context) (sdk.Info, error) {
	return sdk.Info{Name: "example", DisplayName: "Example", Cloud: "none", Topologies: []string{"none"},
		Availability: sdk.Available, PluginVersion: "0.1.0", Schema: schema,
		Capabilities: []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus}}, nil
}

func (example) Validate(_ context.Context, r sdk.ValidateRequest) error {
	return sdk.InvalidInput(sdk.CheckInputs(schema, r.Inputs)...)
}

// The operation ID is derived from the cluster ID: idempotent, and nothing to remember.
func (example) Provision(_ context.Context, r sdk.ProvisionRequest) (sdk.Operation, error) {
	return sdk.Operation{ID: "op-" + r.ClusterID}, nil
}

func (example) Status(_ context.Context, r sdk.StatusRequest) (sdk.OperationStatus, error) {
	if !strings.HasPrefix(r.OperationID, "op-") {
		return sdk.OperationStatus{}, sdk.NotFound("no operation %q", r.OperationID)
	}
	return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Succeeded, Progress: 100, Message: "done"}, nil
}

func (example) Kubeconfig(context.Context, sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	return sdk.Kubeconfig{}, sdk.Unimplemented("example has no clusters")
}

func (example) Destroy(context.Context, sdk.DestroyRequest) (sdk.Operation, error) {
	return sdk.Operation{}, sdk.Unimplemented("example has nothing to destroy")
}

func main() { sdk.Serve(example{}) }
