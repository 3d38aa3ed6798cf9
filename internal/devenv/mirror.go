package devenv

import (
	"fmt"
	"os"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/internal/gitserver"
	"github.com/ochestra-tech/kubeopera/internal/gomodule"
)

// gatewayAPIRepo is the mirror's repository of the Gateway API release.
const gatewayAPIRepo = "gateway-api"

// startMirror serves, on loopback over plain HTTP and without credentials
// (as GitHub serves it), a copy of the outside git sources the GitOps tree
// fetches, which a development machine cannot reach: the Gateway API
// release's config/crd at its tag, taken from upstream's module
// (sigs.k8s.io/gateway-api at gitops.GatewayAPIVersion, through the Go
// module proxy). It returns the server and the repository's URL, for
// gitops.Params.GatewayAPIRepoURL.
func startMirror(root string) (*gitserver.Server, string, error) {
	mod, err := gomodule.Dir(gitops.GatewayAPIModule, gitops.GatewayAPIVersion)
	if err != nil {
		return nil, "", fmt.Errorf("the Gateway API CRDs the clusters install come from its Go module: %w", err)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, "", err
	}
	srv, err := gitserver.New(root, gitserver.Options{})
	if err != nil {
		return nil, "", err
	}
	url, err := srv.ImportDir(gatewayAPIRepo, mod, gitops.GatewayAPICRDDir, gitops.GatewayAPIVersion)
	if err != nil {
		srv.Close()
		return nil, "", err
	}
	return srv, url, nil
}
