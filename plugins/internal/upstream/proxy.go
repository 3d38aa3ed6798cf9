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

// Versions lists the versions of module path the Go module proxy serves.
func Versions(ctx context.Context, path string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-versions", "-json", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var info struct{ Versions []string }
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("list the versions of %s on the Go module proxy: %w %s", path, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil {
		return nil, fmt.Errorf("list the versions of %s: %w", path, err)
	}
	return info.Versions, nil
}
