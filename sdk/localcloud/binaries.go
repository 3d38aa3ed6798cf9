package localcloud

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KubernetesVersion is the version of the sandbox binaries a local cluster
// runs: the one `make testbin` builds into bin/k8s/<KubernetesVersion> of
// a KubeOpera checkout (pinned in its hack/k8s/go.mod).
const KubernetesVersion = "v1.37.2"

// TestbinEnv names the directory of the sandbox binaries, when set.
const TestbinEnv = "KUBEOPERA_TESTBIN_DIR"

// binaries are the programs a local cluster runs, all in one directory.
var binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

// BinDir returns the directory holding the sandbox binaries: $TestbinEnv,
// else the nearest bin/k8s/<KubernetesVersion> in the working directory or
// a directory above it (a KubeOpera checkout, or a plugin's own repository
// that keeps the binaries the same way). It fails, saying how to build
// them, when none is found or a binary is missing.
func BinDir() (string, error) {
	dir := os.Getenv(TestbinEnv)
	if dir == "" {
		var err error
		if dir, err = findUp(filepath.Join("bin", "k8s", KubernetesVersion)); err != nil {
			return "", err
		}
	}
	var missing []string
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("sandbox binaries missing in %s: %s; run 'make testbin' (or set %s)",
			dir, strings.Join(missing, ", "), TestbinEnv)
	}
	return dir, nil
}

// findUp returns the absolute path of rel under the working directory or
// the nearest directory above it that has it.
func findUp(rel string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("sandbox binaries not found: no %s in %s or a directory above it; "+
				"run 'make testbin' in a KubeOpera checkout, then run from inside it or set %s to its bin/k8s/%s",
				rel, wd, TestbinEnv, KubernetesVersion)
		}
	}
}
