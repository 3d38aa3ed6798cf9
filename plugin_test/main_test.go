// Package plugin_test builds every provider plugin and drives it over real
// go-plugin gRPC: through the conformance kit, through the host, and through
// the kubeopera CLI.
package plugin_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// built holds the binaries TestMain builds: the CLI, the four product
// plugins and the fixture in each of its modes.
var built struct {
	dir     string
	cli     string
	plugins map[string]string // provider name -> binary
}

var productPlugins = []string{"aws-eks", "aws-vanilla", "azure-stub", "gcp-stub"}

// fixtureModes maps a fixture mode to the provider name it is built with.
var fixtureModes = map[string]string{"": "fixture", "hang": "hang", "stdout": "chatty", "exit": "quitter", "v2": "future"}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kubeopera-plugin-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	// No plugin may call AWS: every AWS endpoint is a closed loopback port
	// unless an awsWorld points the services at its local stand-ins
	// (AWS_ENDPOINT_URL_<SERVICE> wins over AWS_ENDPOINT_URL). The
	// preflight stays on: go-plugin puts the host's environment after a
	// plugin's own, so an "off" here would win over any world's "on".
	if err := os.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := buildAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "build plugins:", err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildAll(dir string) error {
	built.dir = dir
	built.cli = filepath.Join(dir, "kubeopera")
	built.plugins = map[string]string{}
	if err := goBuild(built.cli, "../cmd/kubeopera", ""); err != nil {
		return err
	}
	for _, p := range productPlugins {
		bin := filepath.Join(dir, "kubeopera-provider-"+p)
		if err := goBuild(bin, "../plugins/"+p, "-X main.version=test"); err != nil {
			return err
		}
		built.plugins[p] = bin
	}
	for mode, name := range fixtureModes {
		bin := filepath.Join(dir, "kubeopera-provider-"+name)
		if err := goBuild(bin, "./testdata/fixture", fmt.Sprintf("-X main.mode=%s -X main.name=%s", mode, name)); err != nil {
			return err
		}
		built.plugins[name] = bin
	}
	return nil
}

// goBuild builds as `make plugins` does: without the symbol table and
// DWARF (a third of the size; stack traces keep their function names),
// which the host hashes at discovery and go-plugin again at start.
func goBuild(out, pkg, ldflags string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w "+ldflags, "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// pluginDir returns a fresh directory holding hard links to the named built
// plugins, so a test can add, break or replace files without touching others.
func pluginDir(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		src, ok := built.plugins[n]
		if !ok {
			t.Fatalf("no built plugin %q", n)
		}
		if err := os.Link(src, filepath.Join(dir, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeFile(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}
