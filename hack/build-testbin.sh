#!/usr/bin/env bash
# Builds the pinned sandbox binaries from the Go module proxy into
# bin/k8s/<kubernetes version>/: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and kwok; and the Flux controllers the Flux tests run into
# bin/flux/<flux version>/: source-controller and kustomize-controller.
# A binary already there is skipped. Each tool has its own module under hack/
# so their dependency graphs never mix.
# Cold: about 25 minutes on 2 cores; warm (Go build cache): a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
K8S_VERSION=$(awk '$1=="require" && $2=="k8s.io/kubernetes" {print $3}' hack/k8s/go.mod)
out="bin/k8s/${K8S_VERSION}"
mkdir -p "$out"
minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
stamp="-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"

build() { # module dir, package, binary, ldflags
	local mod=$1 pkg=$2 bin=$3 ldflags=${4:-"-s -w"}
	if [ -x "$out/$bin" ]; then return 0; fi
	echo "building $bin ($pkg) into $out" >&2
	local start=$SECONDS
	(cd "hack/$mod" && go build -ldflags "$ldflags" -o "../../$out/$bin.tmp" "$pkg")
	mv "$out/$bin.tmp" "$out/$bin"
	echo "built $bin in $((SECONDS - start))s" >&2
}

build etcd go.etcd.io/etcd/server/v3 etcd
build k8s k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver "$stamp"
build k8s k8s.io/kubernetes/cmd/kube-controller-manager kube-controller-manager "$stamp"
build k8s k8s.io/kubernetes/cmd/kube-scheduler kube-scheduler "$stamp"
build kwok sigs.k8s.io/kwok/cmd/kwok kwok
echo "$out"

# Flux: hack/flux/go.sum holds every sum these two builds need. Never run
# `go mod tidy` there: it also wants the controllers' test-only modules, some
# of which the proxy refuses. After changing versions there, refill go.sum
# with `cd hack/flux && go build -mod=mod -o /dev/null <each package>`.
FLUX_VERSION=$(awk '$1=="github.com/fluxcd/source-controller" {print $2; exit}' hack/flux/go.mod)
out="bin/flux/${FLUX_VERSION}"
mkdir -p "$out"
build flux github.com/fluxcd/source-controller source-controller
build flux github.com/fluxcd/kustomize-controller kustomize-controller
echo "$out"
