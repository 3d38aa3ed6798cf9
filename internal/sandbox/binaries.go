package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
		root, err := repoRoot()
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

// repoRoot walks up from the working directory to the KubeOpera go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/ochestra-tech/kubeopera\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the KubeOpera repository: set KUBEOPERA_TESTBIN_DIR to the directory of the sandbox binaries")
		}
		dir = parent
	}
}
