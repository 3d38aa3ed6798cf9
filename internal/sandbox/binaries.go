package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
)

// KubernetesVersion is the version of the sandbox's control-plane binaries;
// it matches the k8s.io/kubernetes requirement in hack/k8s/go.mod (a test
// keeps the two equal).
const KubernetesVersion = "v1.37.2"

// binaries are the programs a sandbox runs, all in one directory.
var binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

// BinDir returns the directory holding the sandbox binaries:
// $KUBEOPERA_TESTBIN_DIR, else bin/k8s/<KubernetesVersion> in the repository
// that contains the working directory. It fails, saying how to build them,
// when any binary is missing.
func BinDir() (string, error) {
	dir := os.Getenv("KUBEOPERA_TESTBIN_DIR")
	if dir == "" {
		root, err := childproc.RepoRoot()
		if errors.Is(err, childproc.ErrNotInRepo) {
			return "", fmt.Errorf("%w: set KUBEOPERA_TESTBIN_DIR to the directory of the sandbox binaries", err)
		}
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "bin", "k8s", KubernetesVersion)
	}
	var missing []string
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("sandbox binaries missing in %s: %s; run 'make testbin' (or set KUBEOPERA_TESTBIN_DIR)",
			dir, strings.Join(missing, ", "))
	}
	return dir, nil
}
