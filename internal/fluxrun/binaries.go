package fluxrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ochestra-tech/kubeopera/internal/childproc"
)

// Version is the version of both Flux controllers; it matches the
// requirements in hack/flux/go.mod and the Flux API modules in go.mod (a test
// keeps them equal).
const Version = "v1.9.6"

// binaries are the controller programs, all in one directory.
var binaries = []string{"source-controller", "kustomize-controller"}

// binDirEnv overrides where the controller binaries are looked for.
const binDirEnv = "KUBEOPERA_FLUX_BIN_DIR"

// BinDir returns the directory holding the controller binaries:
// $KUBEOPERA_FLUX_BIN_DIR, else bin/flux/<Version> in the repository that
// contains the working directory. It fails, saying how to build them, when
// any binary is missing.
func BinDir() (string, error) {
	dir := os.Getenv(binDirEnv)
	if dir == "" {
		root, err := childproc.RepoRoot()
		if errors.Is(err, childproc.ErrNotInRepo) {
			return "", fmt.Errorf("%w: set %s to the directory of the Flux controller binaries", err, binDirEnv)
		}
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "bin", "flux", Version)
	}
	var missing []string
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("flux controller binaries missing in %s: %s; run 'make testbin' (or set %s)",
			dir, strings.Join(missing, ", "), binDirEnv)
	}
	return dir, nil
}

// CRDDirs returns the CRD directories (config/crd/bases) of source-controller
// and kustomize-controller at Version, from the Go module cache, for
// sandbox.Options.CRDDirs. `go mod download` fetches the modules when the
// cache lacks them (make testbin already did).
func CRDDirs(ctx context.Context) ([]string, error) {
	var dirs []string
	for _, m := range []string{"github.com/fluxcd/source-controller", "github.com/fluxcd/kustomize-controller"} {
		cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", m+"@"+Version)
		cmd.Dir = os.TempDir() // outside any module: only the module cache matters
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("locate %s@%s in the module cache (go mod download): %w", m, Version, commandError(err))
		}
		var info struct{ Dir, Error string }
		if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
			return nil, fmt.Errorf("locate %s@%s: go mod download printed no directory (%s%v)", m, Version, info.Error, err)
		}
		dirs = append(dirs, filepath.Join(info.Dir, "config", "crd", "bases"))
	}
	return dirs, nil
}

func commandError(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	return err
}
