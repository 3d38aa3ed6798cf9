// Command broken is a provider plugin with one deliberate mistake, chosen
// at build time (-ldflags "-X main.mode=<mode>"), for the kit's own tests:
// "" has none; "destroy-twice" fails a second Destroy; "garbage-kubeconfig"
// returns a kubeconfig that is not one; "no-field-path" reports its own
// rule's error without a field path; "print-credentials" prints the
// credential to stdout during Provision; "credential-as-string" types its
// credential input as a string and declares no credential kind;
// "accepts-downgrade" upgrades to any version it is asked for;
// "update-not-idempotent" gives every Update a new operation ID;
// "refuses-credential-kind" refuses every credential key its kind does not
// declare, "kind" included (which the server always sends).
package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ochestra-tech/kubeopera/sdk"
)

var mode = ""

type broken struct {
	mu        sync.Mutex
	destroyed map[string]bool
	clusters  map[string]shape // what Provision and Update made, by cluster ID
	updates   int
}

// shape is a cluster's node count and Kubernetes version.
type shape struct {
	nodes   int
	version string
}

var schema = []sdk.InputField{
	{Name: "size", Type: sdk.Int, Default: "2", Help: "an even number"},
	{Name: "nodes", Type: sdk.Int, Default: "1", Min: sdk.Bound(1), Max: sdk.Bound(3), Help: "worker nodes"},
	{Name: "token", Type: sdk.CredentialRef, CredentialKinds: []string{"token"}, Help: "a stored token"},
}

var tokenKind = sdk.CredentialKind{Name: "token", DisplayName: "Token", Help: "any token",
	Fields: []sdk.InputField{{Name: "token", Type: sdk.String, Required: true, Secret: true, Help: "the token"}}}

func (*broken) GetInfo(context.Context) (sdk.Info, error) {
	info := sdk.Info{Name: "broken", DisplayName: "Broken", Cloud: "none", Topologies: []string{"none"},
		Availability: sdk.Available, PluginVersion: "test", Schema: schema, NodeCountInput: "nodes",
		CredentialKinds: []sdk.CredentialKind{tokenKind}, Upgrades: []sdk.Upgrade{{From: "1.37", To: []string{"1.38"}}},
		Capabilities: []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy,
			sdk.CapScale, sdk.CapUpgrade}}
	if mode == "help-restates-bounds" {
		info.Schema = slices.Clone(schema)
		info.Schema[1].Help = "worker nodes, 1 to 3"
	}
	if mode == "credential-as-string" {
		info.Schema = append(schema[:2:2], sdk.InputField{Name: "tokenCredentialRef", Type: sdk.String, Help: "a stored token"})
		info.CredentialKinds = nil
	}
	return info, nil
}

func (*broken) Validate(_ context.Context, r sdk.ValidateRequest) error {
	errs := sdk.CheckInputs(schema, r.Inputs)
	if mode == "refuses-credential-kind" {
		for key := range r.Credentials {
			if !slices.ContainsFunc(tokenKind.Fields, func(f sdk.InputField) bool { return f.Name == key }) {
				errs = append(errs, sdk.FieldError{Field: "credentials." + key, Message: "is not a field of this provider; remove it"})
			}
		}
	}
	if n, err := strconv.Atoi(sdk.WithDefaults(schema, r.Inputs)["size"]); err == nil && n%2 == 1 {
		field := "inputs.size"
		if mode == "no-field-path" {
			field = ""
		}
		errs = append(errs, sdk.FieldError{Field: field, Message: "must be even"})
	}
	return sdk.InvalidInput(errs...)
}

func (b *broken) Provision(_ context.Context, r sdk.ProvisionRequest) (sdk.Operation, error) {
	if mode == "needs-host-env" && os.Getenv("SDKTEST_HOST_ONLY") == "" {
		return sdk.Operation{}, sdk.FailedPrecondition("SDKTEST_HOST_ONLY is not set")
	}
	if mode == "print-credentials" {
		fmt.Println("using token", r.Credentials["token"])
	}
	nodes, _ := strconv.Atoi(sdk.WithDefaults(schema, r.Inputs)["nodes"])
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.clusters[r.ClusterID]; !ok {
		b.clusters[r.ClusterID] = shape{nodes: nodes, version: "1.37"}
	}
	return sdk.Operation{ID: "create:" + r.ClusterID}, nil
}

// Update changes the cluster's shape at once; its operation ID names the
// desired shape, so the same request gives the same ID.
func (b *broken) Update(ctx context.Context, r sdk.UpdateRequest) (sdk.Operation, error) {
	info, _ := b.GetInfo(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.clusters[r.ClusterID]
	if !ok {
		return sdk.Operation{}, sdk.NotFound("no cluster %q", r.ClusterID)
	}
	if r.NodeCount != 0 {
		if err := sdk.CheckNodeCount(info, r.NodeCount); err != nil {
			return sdk.Operation{}, err
		}
		c.nodes = r.NodeCount
	}
	if r.KubernetesVersion != "" {
		if err := sdk.CheckUpgrade(info, c.version, r.KubernetesVersion); err != nil && mode != "accepts-downgrade" {
			return sdk.Operation{}, err
		}
		c.version = r.KubernetesVersion
	}
	b.clusters[r.ClusterID] = c
	id := fmt.Sprintf("update:%s:%d:%s", r.ClusterID, c.nodes, c.version)
	if mode == "update-not-idempotent" {
		b.updates++
		id += ":" + strconv.Itoa(b.updates)
	}
	return sdk.Operation{ID: id}, nil
}

func (b *broken) Status(_ context.Context, r sdk.StatusRequest) (sdk.OperationStatus, error) {
	kind, rest, _ := strings.Cut(r.OperationID, ":")
	if kind != "create" && kind != "destroy" && kind != "update" {
		return sdk.OperationStatus{}, sdk.NotFound("no operation %q", r.OperationID)
	}
	id, _, _ := strings.Cut(rest, ":")
	b.mu.Lock()
	c := b.clusters[id]
	b.mu.Unlock()
	return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Succeeded, Progress: 100, Message: "done",
		NodeCount: c.nodes, KubernetesVersion: c.version}, nil
}

func (b *broken) Kubeconfig(_ context.Context, r sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	if mode == "garbage-kubeconfig" {
		return sdk.Kubeconfig{Data: []byte("this is not a kubeconfig")}, nil
	}
	id := strings.TrimPrefix(r.OperationID, "create:")
	return sdk.Kubeconfig{Data: []byte(b.kubeconfig(id))}, nil
}

func (b *broken) Destroy(_ context.Context, r sdk.DestroyRequest) (sdk.Operation, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.destroyed[r.ClusterID] && mode == "destroy-twice" {
		return sdk.Operation{}, sdk.NotFound("cluster %s is already gone", r.ClusterID)
	}
	b.destroyed[r.ClusterID] = true
	delete(b.clusters, r.ClusterID)
	return sdk.Operation{ID: "destroy:" + r.ClusterID}, nil
}

func main() { sdk.Serve(&broken{destroyed: map[string]bool{}, clusters: map[string]shape{}}) }
