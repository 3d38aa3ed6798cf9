// Command kubeopera-provider-testcloud is the controller tests' provider:
// Provision records the call, Status reports RUNNING for the first
// $TESTCLOUD_POLLS polls of an operation and then SUCCEEDED (or FAILED for
// a cluster ID starting with "doomed" until the state file "fixed-<id>"
// exists), and Kubeconfig returns the file
// $TESTCLOUD_KUBECONFIG, expiring after $TESTCLOUD_KUBECONFIG_TTL when set
// (each such call is counted in the state file "kubeconfig"). Destroy runs
// like Provision (see there). Update (scale and upgrade, from version
// v1.37.2 to 1.38) records the cluster's new shape in the state file
// "shape-<id>" and runs like Provision; Status then reports that shape.
// Its state lives in $TESTCLOUD_STATE, so a restarted plugin (or
// controller) continues where it was.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

type testcloud struct{}

func state(name string) string { return filepath.Join(os.Getenv("TESTCLOUD_STATE"), name) }

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// bump appends one line to a state file and returns the line count.
func bump(name string) int {
	f, err := os.OpenFile(state(name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, _ = f.WriteString("x\n")
		f.Close()
	}
	b, _ := os.ReadFile(state(name))
	return strings.Count(string(b), "\n")
}

func (testcloud) GetInfo(context.Context) (sdk.Info, error) {
	return sdk.Info{Name: "testcloud", DisplayName: "Test cloud", Cloud: "test", Topologies: []string{"test"},
		Availability: sdk.Available, PluginVersion: "test", Schema: schema, NodeCountInput: "nodeCount",
		Upgrades:     []sdk.Upgrade{{From: "v1.37.2", To: []string{"1.38"}}},
		Capabilities: []sdk.Capability{sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy, sdk.CapScale, sdk.CapUpgrade}}, nil
}

var schema = []sdk.InputField{{Name: "nodeCount", Type: sdk.Int, Default: "2", Min: sdk.Bound(1), Max: sdk.Bound(5), Help: "worker nodes"}}

// Update records the desired shape and returns "update-<id>-<n>-<version>".
func (t testcloud) Update(ctx context.Context, r sdk.UpdateRequest) (sdk.Operation, error) {
	info, _ := t.GetInfo(ctx)
	nodes, version := shape(r.ClusterID)
	if r.NodeCount != 0 {
		if err := sdk.CheckNodeCount(info, r.NodeCount); err != nil {
			return sdk.Operation{}, err
		}
		nodes = r.NodeCount
	}
	if r.KubernetesVersion != "" {
		if err := sdk.CheckUpgrade(info, version, r.KubernetesVersion); err != nil {
			return sdk.Operation{}, err
		}
		version = r.KubernetesVersion
	}
	bump("update-" + r.ClusterID)
	if f, err := os.OpenFile(state("update-current-"+r.ClusterID), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		_, _ = fmt.Fprintf(f, "current version=%s nodeCount=%s\n", r.CurrentKubernetesVersion, r.CurrentInputs["nodeCount"])
		f.Close()
	}
	_ = os.WriteFile(state("shape-"+r.ClusterID), []byte(strconv.Itoa(nodes)+" "+version), 0o644)
	return sdk.Operation{ID: "update-" + r.ClusterID + "-" + strconv.Itoa(nodes) + "-" + version}, nil
}

// shape is cluster id's node count and version (2 and v1.37.2 at first).
func shape(id string) (int, string) {
	b, err := os.ReadFile(state("shape-" + id))
	if err != nil {
		return 2, "v1.37.2"
	}
	f := strings.Fields(string(b))
	n, _ := strconv.Atoi(f[0])
	return n, f[1]
}

func (testcloud) Validate(context.Context, sdk.ValidateRequest) error {
	return sdk.Unimplemented("testcloud")
}

func (testcloud) Provision(_ context.Context, r sdk.ProvisionRequest) (sdk.Operation, error) {
	if r.Credentials["accessKeyId"] == "" {
		return sdk.Operation{}, sdk.InvalidInput(sdk.FieldError{Field: "credentials.accessKeyId", Message: "missing"})
	}
	bump("provision-" + r.ClusterID)
	return sdk.Operation{ID: "op-" + r.ClusterID}, nil
}

func (testcloud) Status(_ context.Context, r sdk.StatusRequest) (sdk.OperationStatus, error) {
	polls, _ := strconv.Atoi(os.Getenv("TESTCLOUD_POLLS"))
	if strings.HasPrefix(r.OperationID, "destroy-") && strings.Count(r.OperationID, "-") >= 2 {
		return destroyStatus(r.OperationID, bump("status-"+r.OperationID), polls), nil
	}
	if rest, ok := strings.CutPrefix(r.OperationID, "update-"); ok {
		n := bump("status-" + r.OperationID)
		id := rest[:strings.Index(rest, "-")]
		nodes, version := shape(id)
		if n <= polls {
			return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Running, Progress: 100 * n / (polls + 1),
				Message: "changing machines " + strconv.Itoa(n) + "/" + strconv.Itoa(polls)}, nil
		}
		return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Succeeded, Progress: 100, Message: "updated",
			NodeCount: nodes, KubernetesVersion: version}, nil
	}
	if !strings.HasPrefix(r.OperationID, "op-") {
		return sdk.OperationStatus{}, sdk.NotFound("no operation %q", r.OperationID)
	}
	n := bump("status-" + r.OperationID)
	switch {
	case n <= polls:
		return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Running, Progress: 100 * n / (polls + 1),
			Message: "creating machines " + strconv.Itoa(n) + "/" + strconv.Itoa(polls)}, nil
	case strings.HasPrefix(r.OperationID, "op-doomed") && !exists(state("fixed-"+strings.TrimPrefix(r.OperationID, "op-"))):
		return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Failed, Message: "quota exceeded for instance type t3.medium",
			ErrorClass: sdk.UserFixable}, nil
	}
	return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Succeeded, Progress: 100, Message: "done"}, nil
}

func (testcloud) Kubeconfig(context.Context, sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	b, err := os.ReadFile(os.Getenv("TESTCLOUD_KUBECONFIG"))
	if err != nil {
		return sdk.Kubeconfig{}, sdk.Unavailable("kubeconfig not ready: %v", err)
	}
	kc := sdk.Kubeconfig{Data: b}
	if ttl, err := time.ParseDuration(os.Getenv("TESTCLOUD_KUBECONFIG_TTL")); err == nil {
		bump("kubeconfig")
		kc.ExpiresAt = time.Now().Add(ttl)
	}
	return kc, nil
}

// Destroy records the call and returns operation "destroy-<id>", which
// Status runs like a provision: FAILED while the state file
// "destroy-fails-<id>" exists, else SUCCEEDED.
func (testcloud) Destroy(_ context.Context, r sdk.DestroyRequest) (sdk.Operation, error) {
	if r.Credentials["accessKeyId"] == "" {
		return sdk.Operation{}, sdk.InvalidInput(sdk.FieldError{Field: "credentials.accessKeyId", Message: "missing"})
	}
	bump("destroy-" + r.ClusterID)
	return sdk.Operation{ID: "destroy-" + r.ClusterID + "-" + strconv.Itoa(bump("destroys"))}, nil
}

func destroyStatus(op string, n, polls int) sdk.OperationStatus {
	id := strings.TrimPrefix(op, "destroy-")
	id = id[:strings.LastIndex(id, "-")]
	switch _, err := os.Stat(state("destroy-fails-" + id)); {
	case n <= polls:
		return sdk.OperationStatus{OperationID: op, State: sdk.Running, Progress: 100 * n / (polls + 1),
			Message: "deleting machines " + strconv.Itoa(n) + "/" + strconv.Itoa(polls)}
	case err == nil:
		return sdk.OperationStatus{OperationID: op, State: sdk.Failed, Message: "the VPC still has a network interface in use",
			ErrorClass: sdk.UserFixable}
	}
	return sdk.OperationStatus{OperationID: op, State: sdk.Succeeded, Progress: 100, Message: "deleted"}
}

func main() { sdk.Serve(testcloud{}) }
