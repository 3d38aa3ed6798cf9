//go:build tools

// Package flux pins the Flux controllers the Flux tests run as processes:
// hack/build-testbin.sh builds them from this module into bin/flux/<version>.
// Do not run `go mod tidy` here: it also wants the controllers' test-only
// modules, some of which the module proxy refuses; builds use -mod=mod.
package flux

import (
	_ "github.com/fluxcd/kustomize-controller"
	_ "github.com/fluxcd/source-controller"
)
