package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
)

// ModuleDir downloads module path@version through the Go module proxy (the
// go command's own cache and checksum database) and returns the directory
// holding its files: upstream's own source and data at exactly that
// version, which the tests read instead of our reading of upstream's docs.
func ModuleDir(ctx context.Context, path, version string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", path+"@"+version)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(stdout.Bytes(), &info); jerr != nil && err == nil {
		err = jerr
	}
	if info.Error != "" || err != nil || info.Dir == "" {
		return "", fmt.Errorf("download %s@%s from the Go module proxy: %v %s%s", path, version, err, info.Error, stderr.String())
	}
	return info.Dir, nil
}
