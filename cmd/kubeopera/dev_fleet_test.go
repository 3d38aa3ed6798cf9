package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/devenv"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// Five local clusters provisioned at once under kubeopera dev all reach
// Ready: each one's GitOps commit lands in the one repository while the
// others' do, and Flux's applied revision holding a later commit must
// count as installing the earlier ones (host/pipeline/gitrepo). It runs
// five clusters and their Flux on the machine, so it is in make
// test-fleet (KUBEOPERA_TEST_FLEET=1), not make test.
func TestDevProvisionsFiveClustersAtOnceAllReady(t *testing.T) {
	if os.Getenv("KUBEOPERA_TEST_FLEET") == "" {
		t.Skip("heavy: make test-fleet runs it (KUBEOPERA_TEST_FLEET=1)")
	}
	if _, err := sandbox.BinDir(); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	d := startDev(t, root)
	d.signInAsAdmin(t)
	const n = 5
	ids := make([]string, n)
	start := time.Now()
	for i := range n {
		name := fmt.Sprintf("fleet-%d", i)
		req := map[string]any{"name": name, "provider": "local", "inputs": map[string]string{"nodeCount": "1"},
			"domain": name + ".kubeopera.test", "gitOpsRepoURL": d.repo, "gitOpsPath": "clusters/" + name,
			"gitCredentialsSecretRef": devenv.GitSecret}
		code, c := d.call(t, http.MethodPost, "/api/v1/clusters/provision", req)
		if code != http.StatusAccepted {
			t.Fatalf("provision %s: %d %v", name, code, c)
		}
		ids[i], _ = c["id"].(string)
	}
	for i, id := range ids { // they progress together; each is awaited in turn
		d.waitReady(t, id)
		t.Logf("fleet-%d Ready by %s after the five requests", i, time.Since(start).Round(time.Second))
	}
	t.Logf("all %d clusters provisioned at once were Ready after %s", n, time.Since(start).Round(time.Second))
	d.interrupt(t)
	for _, dir := range []string{"tmp", "bin", "plugins"} {
		if left := localcloud.ProcessesUnder(filepath.Join(root, dir)); len(left) > 0 {
			t.Errorf("processes left after Ctrl-C: %v", left)
		}
	}
}
