// Package sdkexample builds the SDK README's example plugin the way the
// README tells an outside developer to: a new module of its own, made and
// built by the `go` commands of the README's first shell block, with
// sdk/examples/hello/main.go as its main.go (sdktest checks the README
// shows that file verbatim). The tests that build it therefore run what
// the README says, so the two cannot drift apart.
package sdkexample

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Binary is the file name the README builds the example as.
const Binary = "kubeopera-provider-hello"

// The README's placeholders, replaced by the test's directories.
const (
	placeholderPlugins = "/path/to/kubeopera/bin/plugins"
	placeholderRepo    = "/path/to/kubeopera"
)

// section is the README heading whose first ```sh block is run.
const section = "## From `go mod init` to a provisioned cluster"

// Build makes the example module in moduleDir (empty or missing) from the
// checkout at repoRoot and builds the plugin into pluginDir/Binary.
func Build(ctx context.Context, repoRoot, moduleDir, pluginDir string) error {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "sdk", "README.md"))
	if err != nil {
		return err
	}
	cmds, err := GoCommands(readme)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(repoRoot, "sdk", "examples", "hello", "main.go"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(moduleDir, 0o750); err != nil {
		return err
	}
	// Written first: go mod init and edit do not mind it, tidy needs it.
	if err := os.WriteFile(filepath.Join(moduleDir, "main.go"), src, 0o600); err != nil {
		return err
	}
	for _, args := range cmds {
		for i, a := range args {
			a = strings.ReplaceAll(a, placeholderPlugins, pluginDir)
			args[i] = strings.ReplaceAll(a, placeholderRepo, repoRoot)
		}
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		// GOFLAGS and GOWORK of the caller (a test inside the checkout)
		// are not the outside developer's.
		cmd.Dir, cmd.Env = moduleDir, append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s (as the SDK README says): %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// GoCommands returns the `go` command lines of the first ```sh block after
// the README's section heading, continuation lines joined and comments
// dropped, split into words. The block must make a module and build it.
func GoCommands(readme []byte) ([][]string, error) {
	_, rest, ok := bytes.Cut(readme, []byte(section))
	if !ok {
		return nil, fmt.Errorf("sdk/README.md has no heading %q", section)
	}
	_, rest, ok = bytes.Cut(rest, []byte("```sh\n"))
	if !ok {
		return nil, fmt.Errorf("sdk/README.md: no sh block under %q", section)
	}
	block, _, _ := bytes.Cut(rest, []byte("```"))
	var cmds [][]string
	var line string
	sc := bufio.NewScanner(bytes.NewReader(block))
	for sc.Scan() {
		text := sc.Text()
		if i := strings.Index(text, " #"); i >= 0 {
			text = text[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		line += text
		if strings.HasSuffix(line, `\`) {
			line = strings.TrimSuffix(line, `\`)
			continue
		}
		if f := strings.Fields(line); len(f) > 1 && f[0] == "go" {
			cmds = append(cmds, f)
		}
		line = ""
	}
	var init, build bool
	for _, c := range cmds {
		init = init || c[1] == "mod" && len(c) > 2 && c[2] == "init"
		build = build || c[1] == "build"
	}
	if !init || !build {
		return nil, fmt.Errorf("sdk/README.md's shell block under %q lacks `go mod init` or `go build`", section)
	}
	return cmds, nil
}
