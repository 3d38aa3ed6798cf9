#!/usr/bin/env bash
# Builds the pinned sandbox binaries from the Go module proxy into
# bin/k8s/<kubernetes version>/: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and kwok. A binary already there is skipped. Each tool has its
# own module under hack/ so their dependency graphs never mix.
# Cold: about 15 minutes on 2 cores; warm (Go build cache): a few seconds.
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
