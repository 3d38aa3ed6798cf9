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
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

const helloKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: hello
  cluster:
    server: https://127.0.0.1:6443
contexts:
- name: hello
  context: {cluster: hello, user: admin}
current-context: hello
users:
- name: admin
  user: {token: not-a-real-token}
`

// The SDK README's example, built the way an outside developer builds it
// (its own module, the SDK from a replace), is listed by the CLI, passes
// the whole kit with its own credential kind, and gets its setting from the
// operator through the host's per-plugin environment.
func TestOutsiderExampleBuildsAsItsOwnModuleAndPassesTheKit(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	src, err := os.ReadFile(filepath.Join(root, "sdk", "examples", "hello", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mod, "main.go"), src, 0o644)
	writeFile(t, filepath.Join(mod, "go.sum"), sum, 0o644)
	writeFile(t, filepath.Join(mod, "go.mod"), []byte("module example.com/hello\n\ngo 1.26.8\n\n"+
		"require github.com/ochestra-tech/kubeopera v0.0.0\n\n"+
		"replace github.com/ochestra-tech/kubeopera => "+root+"\n"), 0o644)
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubeopera-provider-hello")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Env = mod, append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example as its own module: %v\n%s", err, out)
	}

	stdout, stderr, code := runCLI(t, "plugins", "list", "--plugin-dir", dir)
	if code != 0 || !strings.Contains(stdout, "hello") || !strings.Contains(stdout, "AVAILABLE") {
		t.Fatalf("plugins list: exit %d\n%s\n%s", code, stdout, stderr)
	}

	kc := filepath.Join(t.TempDir(), "kubeconfig")
	writeFile(t, kc, []byte(helloKubeconfig), 0o600)
	sdktest.Run(t, sdktest.Config{Binary: bin, Env: []string{"HELLO_KUBECONFIG=" + kc},
		ValidInputs:   map[string]string{"location": "fsn1", "token": "cred-1"},
		Credentials:   sdk.Credentials{"kind": "hello_token", "token": "hello_s3cretvalue", "project": "demo"},
		InvalidInputs: map[string]map[string]string{"too many nodes": {"location": "fsn1", "token": "c", "nodes": "9"}},
		PollInterval:  50 * time.Millisecond})

	t.Setenv("KUBEOPERA_PLUGIN_ENV_HELLO_HELLO_KUBECONFIG", kc)
	h, _ := openHost(t, plugin.Options{Dir: dir})
	p, _ := h.Provider("hello")
	got, err := p.Kubeconfig(ctxTimeout(t, 20*time.Second), sdk.KubeconfigRequest{OperationID: "create:c1"})
	if err != nil || string(got.Data) != helloKubeconfig {
		t.Fatalf("Kubeconfig through the host = %q, %v; want the file the operator named", got.Data, err)
	}
	if err := p.Validate(context.Background(), sdk.ValidateRequest{Inputs: map[string]string{"location": "fsn1", "token": "c"},
		Credentials: sdk.Credentials{"kind": "hello_token", "token": "nope", "project": "demo"}}); len(sdk.FieldErrors(err)) != 1 ||
		sdk.FieldErrors(err)[0].Field != "credentials.token" || strings.Contains(err.Error(), "nope") {
		t.Errorf("Validate of a malformed token = %v, want one error on credentials.token that does not quote it", err)
	}
}
