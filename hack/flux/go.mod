module github.com/ochestra-tech/kubeopera/hack/flux

go 1.26.8

require (
	github.com/fluxcd/kustomize-controller v1.9.6
	github.com/fluxcd/source-controller v1.9.6
)

// source-controller's own go.mod carries this replace; a replace in a
// dependency does not apply to us, so it is repeated here.
replace github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be

// The version the controllers ask for (v0.18.3) is refused by the module proxy
// here; v0.18.0 has the same API they use.
replace github.com/fluxcd/pkg/artifact => github.com/fluxcd/pkg/artifact v0.18.0
