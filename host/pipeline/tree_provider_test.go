package pipeline

import (
	"testing"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
)

// Any plugin provisions, so the tree must accept the cluster of a provider
// it has no storage for (the local provider's, an outsider's) as "other".
func TestTreeProviderMapsUnknownCloudsToOther(t *testing.T) {
	for in, want := range map[string]string{"aws": "aws", "gcp": "gcp", "azure": "azure", "": "",
		"local": gitops.ProviderOther, "hetzner": gitops.ProviderOther} {
		if got := treeProvider(in); got != want {
			t.Errorf("treeProvider(%q) = %q, want %q", in, got, want)
		}
		p := gitops.Params{ClusterID: "c1", ClusterName: "c1", Domain: "c1.example.com", Path: "clusters/c1",
			Provider: treeProvider(in), FluxNamespace: "flux-system", Version: "v0.1.0"}
		if err := p.Validate(); err != nil {
			t.Errorf("provider %q: tree params refused: %v", in, err)
		}
	}
}
