package main

import (
	"os"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/devenv"
)

// kubeopera dev runs offline, and its browser tests validate AWS requests
// with example keys: it turns the AWS plugins' preflight off, unless the
// operator set it.
func TestDevTurnsTheAWSPreflightOffUnlessSet(t *testing.T) {
	for _, k := range []string{"KUBEOPERA_LOCAL_CLUSTERS_DIR", "KUBEOPERA_TESTBIN_DIR", "KUBEOPERA_AWS_PREFLIGHT"} {
		t.Setenv(k, "") // restored when the test ends
	}
	env := &devenv.Env{LocalClusters: t.TempDir()}
	if err := os.Unsetenv("KUBEOPERA_AWS_PREFLIGHT"); err != nil {
		t.Fatal(err)
	}
	if err := devPluginSettings(env); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("KUBEOPERA_AWS_PREFLIGHT"); got != "off" {
		t.Errorf("unset: KUBEOPERA_AWS_PREFLIGHT = %q after dev's settings, want off", got)
	}
	t.Setenv("KUBEOPERA_AWS_PREFLIGHT", "on")
	if err := devPluginSettings(env); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("KUBEOPERA_AWS_PREFLIGHT"); got != "on" {
		t.Errorf("set by the operator: KUBEOPERA_AWS_PREFLIGHT = %q, want their on kept", got)
	}
}
