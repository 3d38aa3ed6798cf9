// Command kubeopera-provider-hello is the SDK README's example: a provider
// with its own credential kind that "provisions" by handing over a cluster
// that already exists, the one whose kubeconfig file HELLO_KUBECONFIG names
// (an operator sets KUBEOPERA_PLUGIN_ENV_HELLO_HELLO_KUBECONFIG on the host).
// A real provider calls its cloud's API in Provision, Status and Destroy.
package main

import (
	"context"
	"os"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
)

type hello struct{}

var schema = []sdk.InputField{
	{Name: "location", Type: sdk.String, Required: true, Label: "Location", Allowed: []string{"fsn1", "nbg1"}, Help: "data centre"},
	{Name: "nodes", Type: sdk.Int, Default: "1", Min: sdk.Bound(1), Max: sdk.Bound(5), Label: "Nodes", Help: "worker nodes"},
	{Name: "token", Type: sdk.CredentialRef, Required: true, CredentialKinds: []string{"hello_token"}, Help: "a stored hello token"},
}

var tokenKind = sdk.CredentialKind{Name: "hello_token", DisplayName: "Hello API token", Help: "create one in the Hello console",
	Fields: []sdk.InputField{{Name: "token", Type: sdk.String, Required: true, Secret: true, Pattern: `hello_[a-z0-9]{8,}`,
		Help: "a token: hello_ and at least 8 letters or digits"}, {Name: "project", Type: sdk.String, Required: true, Help: "project name"}},
	Last4Field: "project"}

func (hello) GetInfo(context.Context) (sdk.Info, error) {
	return sdk.Info{Name: "hello", DisplayName: "Hello Cloud", Cloud: "hello", Topologies: []string{"existing"},
		Availability: sdk.Available, PluginVersion: "0.1.0", Schema: schema, RegionInput: "location",
		CredentialKinds: []sdk.CredentialKind{tokenKind},
		Capabilities:    []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy}}, nil
}

func (hello) Validate(_ context.Context, r sdk.ValidateRequest) error {
	errs := sdk.CheckInputs(schema, r.Inputs)
	if len(r.Credentials) > 0 {
		errs = append(errs, sdk.CheckCredential(tokenKind, r.Credentials)...)
	}
	return sdk.InvalidInput(errs...)
}

// Operation IDs are derived from the cluster ID: idempotent, nothing to remember.
func (hello) Provision(_ context.Context, r sdk.ProvisionRequest) (sdk.Operation, error) {
	return sdk.Operation{ID: "create:" + r.ClusterID}, nil
}

func (hello) Status(_ context.Context, r sdk.StatusRequest) (sdk.OperationStatus, error) {
	if !strings.HasPrefix(r.OperationID, "create:") && !strings.HasPrefix(r.OperationID, "destroy:") {
		return sdk.OperationStatus{}, sdk.NotFound("no operation %q", r.OperationID)
	}
	return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Succeeded, Progress: 100, Message: "done"}, nil
}

func (hello) Kubeconfig(context.Context, sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	data, err := os.ReadFile(os.Getenv("HELLO_KUBECONFIG"))
	if err != nil {
		return sdk.Kubeconfig{}, sdk.FailedPrecondition("read HELLO_KUBECONFIG: %v", err)
	}
	return sdk.Kubeconfig{Data: data}, nil
}

func (hello) Destroy(_ context.Context, r sdk.DestroyRequest) (sdk.Operation, error) {
	return sdk.Operation{ID: "destroy:" + r.ClusterID}, nil
}

func main() { sdk.Serve(hello{}) }
