// Package gomodule finds an upstream module's files in the Go module
// cache, downloading the module through the module proxy when it is not
// there yet: upstream's own release data (CRDs, charts, manifests) for
// machines that reach nothing but the proxy.
package gomodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Dir is where the Go module cache holds module@version. It runs
// `go mod download` outside any module and with GOFLAGS cleared, so the
// calling repository's go.mod is neither read nor changed.
func Dir(module, version string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("find the go command to read %s@%s: %w", module, version, err)
	}
	cmd := exec.Command(goBin, "mod", "download", "-json", module+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GO111MODULE=on")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); err != nil || jerr != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %v %s %s", module, version, err, info.Error, strings.TrimSpace(stderr.String()))
	}
	return info.Dir, nil
}
