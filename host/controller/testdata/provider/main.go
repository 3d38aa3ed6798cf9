// Command kubeopera-provider-testcloud is the controller tests' provider:
// Provision records the call, Status reports RUNNING for the first
// $TESTCLOUD_POLLS polls of an operation and then SUCCEEDED (or FAILED for
// a cluster ID starting with "doomed"), and Kubeconfig returns the file
// $TESTCLOUD_KUBECONFIG, expiring after $TESTCLOUD_KUBECONFIG_TTL when set
// (each such call is counted in the state file "kubeconfig"). Destroy runs
// like Provision (see there). Its state lives in $TESTCLOUD_STATE, so a
// restarted plugin (or controller) continues where it was.
package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

type testcloud struct{}

func state(name string) string { return filepath.Join(os.Getenv("TESTCLOUD_STATE"), name) }

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
		Availability: sdk.Available, PluginVersion: "test",
		Capabilities: []sdk.Capability{sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy}}, nil
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
	if !strings.HasPrefix(r.OperationID, "op-") {
		return sdk.OperationStatus{}, sdk.NotFound("no operation %q", r.OperationID)
	}
	n := bump("status-" + r.OperationID)
	switch {
	case n <= polls:
		return sdk.OperationStatus{OperationID: r.OperationID, State: sdk.Running, Progress: 100 * n / (polls + 1),
			Message: "creating machines " + strconv.Itoa(n) + "/" + strconv.Itoa(polls)}, nil
	case strings.HasPrefix(r.OperationID, "op-doomed"):
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
