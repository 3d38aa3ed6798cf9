package devenv

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/internal/gomodule"
)

// The mirror serves upstream's Gateway API CRDs for the pinned release:
// cloned the way Flux's source-controller clones (go-git, the tag the
// tree's GitRepository names, no credentials, plain HTTP on loopback), the
// tag holds exactly the files of config/crd in sigs.k8s.io/gateway-api at
// gitops.GatewayAPIVersion, and its standard CRDs carry that release's
// bundle-version.
func TestMirrorServesUpstreamsGatewayAPICRDsAtThePinnedTag(t *testing.T) {
	srv, url, err := startMirror(filepath.Join(t.TempDir(), "mirror"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("mirror URL %s, want plain HTTP on loopback", url)
	}
	clone := t.TempDir()
	if _, err := git.PlainClone(clone, false, &git.CloneOptions{URL: url, Depth: 1, SingleBranch: true,
		ReferenceName: plumbing.NewTagReferenceName(gitops.GatewayAPIVersion)}); err != nil {
		t.Fatalf("clone %s at tag %s: %v", url, gitops.GatewayAPIVersion, err)
	}
	mod, err := gomodule.Dir(gitops.GatewayAPIModule, gitops.GatewayAPIVersion)
	if err != nil {
		t.Fatal(err)
	}
	want, got := files(t, mod, gitops.GatewayAPICRDDir), files(t, clone, gitops.GatewayAPICRDDir)
	for name, body := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s is in upstream's %s but not served", name, gitops.GatewayAPICRDDir)
		} else if !bytes.Equal(g, body) {
			t.Errorf("%s differs from upstream's", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is served but not upstream's", name)
		}
	}
	gateways := got["standard/gateway.networking.k8s.io_gateways.yaml"]
	if !bytes.Contains(gateways, []byte("gateway.networking.k8s.io/bundle-version: "+gitops.GatewayAPIVersion)) {
		t.Errorf("the served Gateway CRD is not release %s's", gitops.GatewayAPIVersion)
	}
	if len(want) < 5 {
		t.Errorf("%d files in upstream's %s: the module's layout changed", len(want), gitops.GatewayAPICRDDir)
	}
}

// files reads every file under root/sub, by path relative to it.
func files(t *testing.T, root, sub string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	base := filepath.Join(root, sub)
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
