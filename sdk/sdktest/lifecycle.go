package sdktest

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Build compiles the Go package pkg (a path go build accepts) into a
// temporary directory as kubeopera-provider-<name>, the name the host
// loads, and returns the binary's path.
func Build(t testing.TB, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kubeopera-provider-"+name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// lifecycle provisions one cluster for real, follows Status to a terminal
// state, fetches the kubeconfig and dials its API server (GET /version, and
// the node list against the worker count the plugin reports), changes the
// cluster as the provider's "scale" and "upgrade" capabilities say (day2,
// the node count checked again after each Update), destroys the cluster,
// follows the destroy, and destroys it again: Destroy must be idempotent.
// Whatever happens, the cluster is destroyed at the end.
func (k *kit) lifecycle(t *testing.T) {
	need := []sdk.Capability{sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy}
	for _, c := range need {
		if !k.info.Has(c) {
			t.Skipf("provider does not declare %q: the lifecycle needs provision, status, kubeconfig and destroy", c)
		}
	}
	if k.cfg.SkipLifecycle {
		t.Skip("Config.SkipLifecycle is set")
	}
	k.serverAccepts(t)
	id := "sdktest-lifecycle"
	destroyed := false
	t.Cleanup(func() {
		if !destroyed {
			_, _ = k.prov.Destroy(context.Background(), k.call.DestroyRequest(id))
		}
	})
	op, err := k.prov.Provision(k.ctx(t), k.call.ProvisionRequest(id))
	if err != nil {
		t.Fatalf("Provision: %v", err)
	}
	provisioned := k.follow(t, "Provision", op.ID)
	if provisioned.State != sdk.Succeeded {
		t.Fatalf("Provision ended %s (%s): %s", provisioned.State, provisioned.ErrorClass, provisioned.Message)
	}
	kc, err := k.prov.Kubeconfig(k.ctx(t), sdk.KubeconfigRequest{OperationID: op.ID, Credentials: k.call.Credentials})
	if err != nil {
		t.Fatalf("Kubeconfig: %v", err)
	}
	k.observe(provisioned, 0, "")
	api := k.dial(t, kc.Data)
	k.checkNodes(t, api, "Provision", reportedNodes(provisioned, 0))
	k.day2(t, id, provisioned, api)
	for i := 1; i <= 2; i++ {
		dop, err := k.prov.Destroy(k.ctx(t), k.call.DestroyRequest(id))
		if err != nil {
			t.Fatalf("Destroy #%d: %v (Destroy must be idempotent: destroying what is gone succeeds)", i, err)
		}
		if st := k.follow(t, fmt.Sprintf("Destroy #%d", i), dop.ID); st.State != sdk.Succeeded {
			t.Fatalf("Destroy #%d ended %s: %s (Destroy must be idempotent)", i, st.State, st.Message)
		}
		destroyed = true
	}
}

// reportedNodes is the worker count after an operation: what Status
// reported, else what was asked for (0 for Provision), else 0 (unknown: not
// checked).
func reportedNodes(st sdk.OperationStatus, asked int) int {
	if st.NodeCount != 0 {
		return st.NodeCount
	}
	return asked
}

// follow polls Status of op until it is SUCCEEDED or FAILED, within
// Config.LifecycleTimeout.
func (k *kit) follow(t *testing.T, what, op string) sdk.OperationStatus {
	t.Helper()
	deadline := time.Now().Add(k.cfg.LifecycleTimeout)
	for {
		st, err := k.prov.Status(k.ctx(t), sdk.StatusRequest{OperationID: op, Credentials: k.call.Credentials})
		if err != nil {
			t.Fatalf("Status of %s operation %q: %v", what, op, err)
		}
		if st.State == sdk.Succeeded || st.State == sdk.Failed {
			if st.State == sdk.Failed && st.ErrorClass == sdk.NoError {
				t.Errorf("%s failed without an error class: say USER_FIXABLE, RETRYABLE or TERMINAL", what)
			}
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s operation %q still %s after %s (Config.LifecycleTimeout): %s", what, op, st.State, k.cfg.LifecycleTimeout, st.Message)
		}
		time.Sleep(k.cfg.PollInterval)
	}
}

// customRules checks each of Config.InvalidInputs: refused with an
// InvalidInput error whose every field error has a path.
func (k *kit) customRules(t *testing.T) {
	if len(k.cfg.InvalidInputs) == 0 {
		t.Skip("Config.InvalidInputs is empty: list inputs your own rules refuse to have them checked")
	}
	for name, inputs := range k.cfg.InvalidInputs {
		t.Run(name, func(t *testing.T) {
			err := k.prov.Validate(k.ctx(t), sdk.ValidateRequest{Inputs: inputs, Credentials: k.call.Credentials})
			if !errors.Is(err, sdk.ErrInvalidInput) {
				t.Fatalf("Validate(%v) = %v, want an sdk.InvalidInput error", inputs, err)
			}
			checkFieldPaths(t, err)
		})
	}
}

// checkFieldPaths fails for a field error without a path the host and the
// dashboard can attach it to.
func checkFieldPaths(t *testing.T, err error) {
	t.Helper()
	for _, f := range sdk.FieldErrors(err) {
		if !strings.HasPrefix(f.Field, "inputs.") && !strings.HasPrefix(f.Field, "credentials.") {
			t.Errorf("field error %q has field path %q: name the field as inputs.<name> or credentials.<name>", f.Message, f.Field)
		}
	}
}

// noSecretsInOutput fails when a credential value appeared on the plugin's
// stdout or stderr during the run.
func (k *kit) noSecretsInOutput(t *testing.T) {
	out := k.output.String()
	for key, v := range k.cfg.Credentials {
		if key != "kind" && len(v) >= 4 && strings.Contains(out, v) {
			t.Errorf("the plugin wrote the value of credential %q to its output (stdout or its log): never print or log credentials", key)
		}
	}
}
