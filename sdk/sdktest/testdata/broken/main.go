// Command broken is a provider plugin with one deliberate mistake, chosen
// at build time (-ldflags "-X main.mode=<mode>"), for the kit's own tests:
// "" has none; "destroy-twice" fails a second Destroy; "garbage-kubeconfig"
// returns a kubeconfig that is not one; "no-field-path" reports its own
// rule's error without a field path; "print-credentials" prints the
// credential to stdout during Provision.
package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/ochestra-tech/kubeopera/sdk"
)

var mode = ""

type broken struct {
	mu        sync.Mutex
	destroyed map[string]bool
}

var schema = []sdk.InputField{{Name: "size", Type: sdk.Int, Default: "2", Help: "an even number"}}

func (*broken) GetInfo(context.Context) (sdk.Info, error) {
	return sdk.Info{Name: "broken", DisplayName: "Broken", Cloud: "none", Topologies: []string{"none"},
		Availability: sdk.Available, PluginVersion: "test", Schema: schema,
		Capabilities: []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy}}, nil
}

func (*broken) Validate(_ context.Context, r sdk.ValidateRequest) error {
	errs := sdk.CheckInputs(schema, r.Inputs)
	if n, err := strconv.Atoi(sdk.WithDefaults(schema, r.Inputs)["size"]); err == nil && n%2 == 1 {
		field := "inputs.size"
		if mode == "no-field-path" {
			field = ""
		}
		errs = append(errs, sdk.FieldError{Field: field, Message: "must be even"})
	}
	return sdk.InvalidInput(errs...)
}

func (*broken) Provision(_ context.Context, r sdk.ProvisionRequest) (sdk.Operation, error) {
	if mode == "print-credentials" {
		fmt.Println("using token", r.Credentials["token"])
	}
	return sdk.Operation{ID: "create:" + r.ClusterID}, nil
}

func (*broken) Status(_ context.Context, r sdk.StatusRequest) (sdk.OperationStatus, error) {
	if !strings.HasPrefix(r.OperationID, "create:") && !strings.HasPrefix(r.OperationID, "destroy:") {
		return sdk.OperationStatus{}, sdk.NotFound("no operation %q", r.OperationID)
	}
	return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Succeeded, Progress: 100, Message: "done"}, nil
}

const goodKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: t}
`

func (*broken) Kubeconfig(context.Context, sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	if mode == "garbage-kubeconfig" {
		return sdk.Kubeconfig{Data: []byte("this is not a kubeconfig")}, nil
	}
	return sdk.Kubeconfig{Data: []byte(goodKubeconfig)}, nil
}

func (b *broken) Destroy(_ context.Context, r sdk.DestroyRequest) (sdk.Operation, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.destroyed[r.ClusterID] && mode == "destroy-twice" {
		return sdk.Operation{}, sdk.NotFound("cluster %s is already gone", r.ClusterID)
	}
	b.destroyed[r.ClusterID] = true
	return sdk.Operation{ID: "destroy:" + r.ClusterID}, nil
}

func main() { sdk.Serve(&broken{destroyed: map[string]bool{}}) }
