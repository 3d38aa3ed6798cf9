#!/usr/bin/env bash
# Builds kubeadm from k8s.io/kubernetes (Go module proxy) for every module
# under hack/kubeadm/<version> into bin/kubeadm/<version>/kubeadm, as
# build-testbin.sh builds the sandbox binaries; one already built is skipped.
# The AWS upstream checks (make test-aws) run `kubeadm config validate` with
# them on every kubeadm configuration the vanilla bootstrap renders.
# Cold: several minutes per version on 2 cores; warm: seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
for mod in hack/kubeadm/v*/; do
	version=$(basename "$mod")
	out="bin/kubeadm/$version"
	[ -x "$out/kubeadm" ] && continue
	mkdir -p "$out"
	minor=${version#v1.}; minor=${minor%%.*}
	stamp="-s -w -X k8s.io/component-base/version.gitVersion=${version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"
	echo "building kubeadm $version into $out" >&2
	start=$SECONDS
	(cd "$mod" && go build -ldflags "$stamp" -o "../../../$out/kubeadm.tmp" k8s.io/kubernetes/cmd/kubeadm)
	mv "$out/kubeadm.tmp" "$out/kubeadm"
	echo "built kubeadm $version in $((SECONDS - start))s" >&2
done
