package plugin_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type listOutput struct {
	Plugins []struct {
		Name, Availability, Path, SHA256, Version string
		ProtocolVersion                           int
	}
	Skipped []struct{ Path, Reason, Detail string }
}

// runCLI runs the built kubeopera binary and returns stdout, stderr and the
// exit code. The CLI must finish on its own: a hang fails the test.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(built.cli, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("kubeopera %v hung; stderr:\n%s", args, errb.String())
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func TestPluginsListSkipsEveryBadFileWithItsReason(t *testing.T) {
	dir := pluginDir(t, append(productPlugins, "hang", "chatty", "quitter", "future")...)
	random := make([]byte, 4096)
	_, _ = rand.Read(random)
	writeFile(t, filepath.Join(dir, "kubeopera-provider-random"), random, 0o755)
	writeFile(t, filepath.Join(dir, "kubeopera-provider-script"), []byte("#!/bin/sh\necho I am a shell script\n"), 0o755)
	writeFile(t, filepath.Join(dir, "kubeopera-provider-silent"), []byte("#!/bin/sh\necho no config >&2\nexit 2\n"), 0o755)
	noexec, _ := os.ReadFile(built.plugins["aws-eks"])
	writeFile(t, filepath.Join(dir, "kubeopera-provider-noexec"), noexec, 0o644)
	writeFile(t, filepath.Join(dir, "README.txt"), []byte("notes"), 0o644)

	stdout, stderr, code := runCLI(t, "plugins", "list", "--plugin-dir", dir, "-o", "json", "--start-timeout", "2s")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var got listOutput
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not the JSON listing: %v\n%s", err, stdout)
	}
	if len(got.Plugins) != 4 {
		t.Errorf("loaded %d plugins, want the 4 product plugins: %+v", len(got.Plugins), got.Plugins)
	}
	want := map[string]struct{ reason, detail string }{
		"kubeopera-provider-hang":    {"handshake timed out", "start timeout"},
		"kubeopera-provider-chatty":  {"printed to stdout", "hello from a plugin that prints to stdout"},
		"kubeopera-provider-quitter": {"exited at start", "missing FIXTURE_CONFIG"},
		"kubeopera-provider-future":  {"protocol mismatch", "plugin speaks kubeopera.provider.v2, this host speaks v1"},
		"kubeopera-provider-random":  {"not executable", "exec format error"},
		"kubeopera-provider-script":  {"printed to stdout", "I am a shell script"},
		"kubeopera-provider-silent":  {"exited at start", "no config"},
		"kubeopera-provider-noexec":  {"not executable", "chmod +x"},
		"README.txt":                 {"not a plugin", "kubeopera-provider-<name>"},
	}
	seen := map[string]bool{}
	for _, s := range got.Skipped {
		base := filepath.Base(s.Path)
		seen[base] = true
		w, ok := want[base]
		if !ok {
			t.Errorf("unexpected skip of %s: %s: %s", base, s.Reason, s.Detail)
			continue
		}
		if s.Reason != w.reason || !strings.Contains(s.Detail, w.detail) {
			t.Errorf("%s skipped as %q (%s), want %q mentioning %q", base, s.Reason, s.Detail, w.reason, w.detail)
		}
	}
	for base := range want {
		if !seen[base] {
			t.Errorf("%s was not reported as skipped", base)
		}
	}
	assertNoProcessRunsFrom(t, dir)
}

func TestPluginsListTable(t *testing.T) {
	dir := pluginDir(t, productPlugins...)
	writeFile(t, filepath.Join(dir, "kubeopera-provider-noexec"), []byte("x"), 0o644)
	stdout, stderr, code := runCLI(t, "plugins", "list", "--plugin-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("want a header, 4 plugins and 1 skipped line, got:\n%s", stdout)
	}
	for _, l := range lines[1:5] {
		if !strings.Contains(l, " ok ") {
			t.Errorf("row lacks the health: %q", l)
		}
		if !strings.Contains(l, " v1 ") {
			t.Errorf("row lacks the protocol: %q", l)
		}
		if !strings.Contains(l, "AVAILABLE") && !strings.Contains(l, "SOON") {
			t.Errorf("row lacks availability: %q", l)
		}
	}
	if !strings.HasPrefix(lines[5], "skipped ") || !strings.Contains(lines[5], "not executable") {
		t.Errorf("last line = %q, want the skipped file and its reason", lines[5])
	}
	if strings.Contains(stderr, "[ERROR]") {
		t.Errorf("stderr reports errors for a healthy directory:\n%s", stderr)
	}
}

func TestPluginsListFailsWhenDirectoryCannotBeRead(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent")
	_, stderr, code := runCLI(t, "plugins", "list", "--plugin-dir", missing)
	if code == 0 || !strings.Contains(stderr, missing) || !strings.Contains(stderr, "KUBEOPERA_PLUGIN_DIR") {
		t.Fatalf("exit %d, stderr %q: want non-zero naming the directory and how to set it", code, stderr)
	}
}

// assertNoProcessRunsFrom fails when any process's executable lives in dir:
// no plugin may outlive the command that started it.
func assertNoProcessRunsFrom(t *testing.T, dir string) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, exe := range procs {
		target, err := os.Readlink(exe)
		if err == nil && strings.HasPrefix(target, dir) {
			t.Errorf("process %s still runs %s", filepath.Dir(exe), target)
		}
	}
}

func TestPluginsInspectShowsSchemaAndCredentialKinds(t *testing.T) {
	dir := pluginDir(t, "aws-vanilla")
	stdout, stderr, code := runCLI(t, "plugins", "inspect", "aws-vanilla", "--plugin-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"capabilities: validate, provision", "region input: region",
		"credentialRef", "credential (access_key|assume_role)", "credential kind access_key",
		"secretAccessKey", "string (secret)", "credential kind assume_role", "one of "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, stdout)
		}
	}
	_, stderr, code = runCLI(t, "plugins", "inspect", "nope", "--plugin-dir", dir)
	if code == 0 || !strings.Contains(stderr, `no provider plugin "nope"`) {
		t.Errorf("unknown plugin: exit %d, stderr %q", code, stderr)
	}
}
