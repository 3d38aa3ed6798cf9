package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/devenv"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// A plugin built only on the public SDK and its local cloud, the SDK
// README's walkthrough (sdk/localcloud/example, its own module), is loaded
// by `kubeopera dev` from the plugin directory, provisions through the
// server and controller to Ready, scales 2 → 3 → 1 (each count read on the
// cluster's own API server) and is torn down through its Destroy with no
// process and no directory left.
func TestFakecloudPluginProvisionsScalesAndTearsDownThroughDev(t *testing.T) {
	if os.Getenv("KUBEOPERA_TEST_DEV") == "" { // see TestDevProvisions...
		t.Skip("run alone: KUBEOPERA_TEST_DEV=1 go test -run TestFakecloud ./cmd/kubeopera/ (make test does)")
	}
	if _, err := localcloud.BinDir(); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	plugin := filepath.Join(root, "plugins", "kubeopera-provider-fakecloud")
	if b, err := exec.Command("go", "-C", "../../sdk/localcloud", "build", "-o", plugin, "./example").CombinedOutput(); err != nil {
		t.Fatalf("build the example: %v\n%s", err, b)
	}
	d := startDev(t, root)
	d.signInAsAdmin(t)
	code, cluster := d.call(t, http.MethodPost, "/api/v1/clusters/provision", map[string]any{
		"name": "fc1", "provider": "fakecloud", "inputs": map[string]string{"nodes": "2"},
		"domain": "fc1.kubeopera.test", "gitOpsRepoURL": d.repo, "gitOpsPath": "clusters/fc1",
		"gitCredentialsSecretRef": devenv.GitSecret})
	if code != http.StatusAccepted {
		t.Fatalf("provision with the fakecloud plugin answered %d: %v", code, cluster)
	}
	id, _ := cluster["id"].(string)
	if got := d.waitReady(t, id); got["plugin"] != "fakecloud" || got["source"] != "provisioned" {
		t.Errorf("the Ready cluster is recorded as plugin %v, source %v; want fakecloud, provisioned", got["plugin"], got["source"])
	}
	d.day2(t, root, id, "fc1")
	d.interrupt(t)
	for _, dir := range []string{"tmp", "bin", "plugins"} {
		if left := localcloud.ProcessesUnder(filepath.Join(root, dir)); len(left) > 0 {
			t.Errorf("processes left after Ctrl-C: %v", left)
		}
	}
}
