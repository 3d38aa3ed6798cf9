package sandbox

import "github.com/ochestra-tech/kubeopera/sdk/localcloud"

// KubernetesVersion is the version of the sandbox's control-plane binaries;
// it matches the k8s.io/kubernetes requirement in hack/k8s/go.mod (a test
// keeps the two equal). The local cloud of the SDK runs the same binaries.
const KubernetesVersion = localcloud.KubernetesVersion

// BinDir returns the directory holding the sandbox binaries:
// $KUBEOPERA_TESTBIN_DIR, else the nearest bin/k8s/<KubernetesVersion> in
// the working directory or above it (the repository's). It fails, saying
// how to build them, when none is found or a binary is missing. The SDK's
// local cloud finds them the same way: this is its function.
func BinDir() (string, error) { return localcloud.BinDir() }
