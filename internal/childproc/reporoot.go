package childproc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotInRepo is returned by RepoRoot when no directory above the working
// directory holds the KubeOpera go.mod; callers add which setting to use
// instead.
var ErrNotInRepo = errors.New("not inside the KubeOpera repository")

// RepoRoot walks up from the working directory to the KubeOpera go.mod and
// returns its directory.
func RepoRoot() (string, error) {
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
			return "", ErrNotInRepo
		}
		dir = parent
	}
}
