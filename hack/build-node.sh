#!/usr/bin/env bash
# Builds what the sandbox's real node runs (make test-node), from the Go
# module proxy, each from its own pinned module under hack/ as
# build-testbin.sh does for the control plane:
#   bin/node/<kubernetes version>/   kubelet, kube-proxy (hack/k8s, the same
#                                    k8s.io/kubernetes as the sandbox)
#   bin/node/containerd/<version>/   containerd, containerd-shim-runc-v2, ctr
#                                    (hack/containerd; Kubernetes after 1.35
#                                    needs containerd 2, Debian has 1.6)
#   bin/node/cni/<version>/          bridge, host-local, loopback, portmap
#                                    (hack/cni)
#   bin/node/images/                 pause-oci and terraform-oci: OCI image
#                                    layouts (hack/image/node) of the pod
#                                    sandbox and of sdk/terraform's Job
# A binary already there is skipped; the images are written again (seconds).
# runc, iptables and busybox-static (the shell the test pods and the
# Terraform image run) come from Debian and are installed with apt-get when
# missing. Prints the folders.
# Cold, measured on 2 cores shared with other builds (load average about
# 40): the CNI plugins 161 s, containerd 2,233 s, its shim 18 s and ctr
# 56 s more, the kubelet 2,199 s and kube-proxy 69 s (while make testbin's
# kube-apiserver, which shares most of the kubelet's packages, was still
# building). Warm: 4.4 s (only the images are written again).
set -euo pipefail
cd "$(dirname "$0")/.."

modversion() { # module dir, module path
	awk -v m="$2" '($1=="require" && $2==m) {print $3; exit} ($1==m) {print $2; exit}' "hack/$1/go.mod"
}

build() { # module dir, package, output file, ldflags, build tags
	local mod=$1 pkg=$2 file=$3 ldflags=${4:-"-s -w"} tags=${5:-}
	if [ -x "$file" ]; then return 0; fi
	mkdir -p "$(dirname "$file")"
	echo "building $(basename "$file") ($pkg) into $(dirname "$file")" >&2
	local start=$SECONDS
	(cd "hack/$mod" && nice -n 5 go build -tags "$tags" -ldflags "$ldflags" -o "$OLDPWD/$file.tmp" "$pkg")
	mv "$file.tmp" "$file"
	echo "built $(basename "$file") in $((SECONDS - start))s" >&2
}

missing=()
command -v runc >/dev/null || missing+=(runc)
command -v iptables >/dev/null || missing+=(iptables)
test -x /bin/busybox || missing+=(busybox-static)
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing ${missing[*]} with apt-get" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

CNI_VERSION=$(modversion cni github.com/containernetworking/plugins)
cni="bin/node/cni/${CNI_VERSION}"
for p in ipam/host-local main/bridge main/loopback meta/portmap; do
	build cni "github.com/containernetworking/plugins/plugins/$p" "$cni/$(basename "$p")"
done

CONTAINERD_VERSION=$(modversion containerd github.com/containerd/containerd/v2)
ctrd="bin/node/containerd/${CONTAINERD_VERSION}"
# No btrfs or devmapper snapshotters: overlayfs and native serve the node,
# and those two need C headers this machine does not have.
tags="no_btrfs no_devmapper"
vstamp="-s -w -X github.com/containerd/containerd/v2/version.Version=${CONTAINERD_VERSION}"
build containerd github.com/containerd/containerd/v2/cmd/containerd "$ctrd/containerd" "$vstamp" "$tags"
build containerd github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 "$ctrd/containerd-shim-runc-v2" "$vstamp" "$tags"
build containerd github.com/containerd/containerd/v2/cmd/ctr "$ctrd/ctr" "$vstamp" "$tags"

K8S_VERSION=$(modversion k8s k8s.io/kubernetes)
k8s="bin/node/${K8S_VERSION}"
minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
stamp="-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"
build k8s k8s.io/kubernetes/cmd/kubelet "$k8s/kubelet" "$stamp"
build k8s k8s.io/kubernetes/cmd/kube-proxy "$k8s/kube-proxy" "$stamp"

images=bin/node/images
# Static: the pause image holds nothing but the program.
CGO_ENABLED=0 build image ./pause "$images/pause-bin" "-s -w"
(cd hack/image && nice -n 5 go run ./node -pause "$OLDPWD/$images/pause-bin" \
	-terraform "$(command -v terraform)" -busybox /bin/busybox -out "$OLDPWD/$images" >&2)

echo "$k8s"
echo "$ctrd"
echo "$cni"
echo "$images"
