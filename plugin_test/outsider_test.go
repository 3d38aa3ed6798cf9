package plugin_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/sdkexample"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// The SDK README's example, built the way an outside developer builds it
// (its own module, made by the README's commands, the SDK from a replace),
// requires no Kubernetes module, is listed by the CLI, passes the whole kit
// with its own credential kind, and gets its setting from the operator
// through the host's per-plugin environment.
func TestOutsiderExampleBuildsAsItsOwnModuleAndPassesTheKit(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod, dir := t.TempDir(), t.TempDir()
	bin := filepath.Join(dir, sdkexample.Binary)
	if err := sdkexample.Build(ctxTimeout(t, 5*time.Minute), root, mod, dir); err != nil {
		t.Fatal(err)
	}
	list := exec.Command("go", "list", "-m", "all")
	list.Dir, list.Env = mod, append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	mods, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all in the example's module: %v\n%s", err, mods)
	}
	if !strings.Contains(string(mods), "github.com/ochestra-tech/kubeopera/sdk v0.0.0 => ") {
		t.Errorf("the example's module graph lacks the SDK from its replace:\n%s", mods)
	}
	for _, m := range strings.Split(string(mods), "\n") {
		if strings.HasPrefix(m, "k8s.io/") || strings.HasPrefix(m, "sigs.k8s.io/") ||
			strings.HasPrefix(m, "github.com/ochestra-tech/kubeopera ") {
			t.Errorf("a plugin using only the SDK requires %s", m)
		}
	}

	stdout, stderr, code := runCLI(t, "plugins", "list", "--plugin-dir", dir)
	if code != 0 || !strings.Contains(stdout, "hello") || !strings.Contains(stdout, "AVAILABLE") {
		t.Fatalf("plugins list: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// The cluster that already exists: a real API server on loopback,
	// which the kit dials.
	existing, err := sandbox.Start(context.Background(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = existing.Stop() })
	kc := existing.KubeconfigPath
	sdktest.Run(t, sdktest.Config{Binary: bin, Env: []string{"HELLO_KUBECONFIG=" + kc},
		ValidInputs:   map[string]string{"location": "fsn1", "token": "cred-1"},
		Credentials:   sdk.Credentials{"kind": "hello_token", "token": "hello_s3cretvalue", "project": "demo"},
		InvalidInputs: map[string]map[string]string{"too many nodes": {"location": "fsn1", "token": "c", "nodes": "9"}},
		PollInterval:  50 * time.Millisecond})

	t.Setenv("KUBEOPERA_PLUGIN_ENV_HELLO_HELLO_KUBECONFIG", kc)
	h, _ := openHost(t, plugin.Options{Dir: dir})
	p, _ := h.Provider("hello")
	got, err := p.Kubeconfig(ctxTimeout(t, 20*time.Second), sdk.KubeconfigRequest{OperationID: "create:c1"})
	if err != nil || string(got.Data) != string(existing.Kubeconfig) {
		t.Fatalf("Kubeconfig through the host = %q, %v; want the file the operator named", got.Data, err)
	}
	if err := p.Validate(context.Background(), sdk.ValidateRequest{Inputs: map[string]string{"location": "fsn1", "token": "c"},
		Credentials: sdk.Credentials{"kind": "hello_token", "token": "nope", "project": "demo"}}); len(sdk.FieldErrors(err)) != 1 ||
		sdk.FieldErrors(err)[0].Field != "credentials.token" || strings.Contains(err.Error(), "nope") {
		t.Errorf("Validate of a malformed token = %v, want one error on credentials.token that does not quote it", err)
	}
}
