package sandbox

import "github.com/ochestra-tech/kubeopera/sdk/localcloud"

// KubernetesVersion is the version of the sandbox's control-plane binaries;
// it matches the k8s.io/kubernetes requirement in hack/k8s/go.mod (a test
// keeps the two equal). The local cloud of the SDK runs the same binaries.
const KubernetesVersion = localcloud.KubernetesVersion

// BinDir returns the directory holding the sandbox binaries:
// $KUBEOPERA_TESTBIN_DIR, else bin/k8s/<KubernetesVersion> of the
// repository that contains the working directory. It fails, saying how to
// build them, when any binary is missing.
func BinDir() (string, error) { return localcloud.BinDir() }
