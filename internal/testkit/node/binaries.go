package node

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// Versions of the node's programs; they match hack/containerd/go.mod and
// hack/cni/go.mod (a test keeps them equal). The kubelet and kube-proxy
// are sandbox.KubernetesVersion.
const (
	ContainerdVersion = "v2.4.2"
	CNIVersion        = "v1.10.0"
)

// binaries are the paths of the node's programs.
type binaries struct {
	kubelet, kubeProxy string
	containerd         string // directory: containerd, containerd-shim-runc-v2, ctr
	cni                string // directory of the CNI plugins
	runc               string
}

// findBinaries finds what hack/build-node.sh built under bin/node (the
// kubelet and kube-proxy only when kube is set), and Debian's runc and
// iptables; it fails, saying how to get them, when any is missing.
func findBinaries(kube bool) (binaries, error) {
	root, err := childproc.RepoRoot()
	if err != nil {
		return binaries{}, err
	}
	base := filepath.Join(root, "bin", "node")
	b := binaries{
		kubelet:    filepath.Join(base, sandbox.KubernetesVersion, "kubelet"),
		kubeProxy:  filepath.Join(base, sandbox.KubernetesVersion, "kube-proxy"),
		containerd: filepath.Join(base, "containerd", ContainerdVersion),
		cni:        filepath.Join(base, "cni", CNIVersion),
	}
	want := []string{filepath.Join(b.containerd, "containerd"), filepath.Join(b.containerd, "containerd-shim-runc-v2"),
		filepath.Join(b.containerd, "ctr"),
		filepath.Join(b.cni, "bridge"), filepath.Join(b.cni, "host-local"), filepath.Join(b.cni, "loopback"),
		filepath.Join(b.cni, "portmap")}
	if kube {
		want = append(want, b.kubelet, b.kubeProxy)
	}
	var missing []string
	for _, f := range want {
		if _, err := os.Stat(f); err != nil {
			missing = append(missing, f)
		}
	}
	for _, prog := range []string{"runc", "iptables"} {
		if _, err := exec.LookPath(prog); err != nil {
			missing = append(missing, prog+" (Debian)")
		}
	}
	if len(missing) > 0 {
		return b, fmt.Errorf("node programs missing: %s; run hack/build-node.sh", strings.Join(missing, ", "))
	}
	b.runc, _ = exec.LookPath("runc")
	return b, nil
}

// ImagesDir is where hack/build-node.sh writes the node's image layouts
// (pause-oci, terraform-oci).
func ImagesDir() (string, error) {
	root, err := childproc.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bin", "node", "images"), nil
}

func joinLabels(labels map[string]string) string {
	var kv []string
	for k, v := range labels {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}
