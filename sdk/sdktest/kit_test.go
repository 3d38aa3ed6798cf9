package sdktest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// brokenConfig is the kit's configuration for the broken fixture. Its
// credential leaves "kind" out, as authors do: the kit adds it, as the
// server does, since the fixture's credential input accepts one kind.
func brokenConfig(bin string) sdktest.Config {
	return sdktest.Config{Binary: bin, ValidInputs: map[string]string{"size": "2"},
		Credentials:      sdk.Credentials{"token": "tok-sdktest-secret"},
		InvalidInputs:    map[string]map[string]string{"odd size": {"size": "3"}},
		LifecycleTimeout: 3 * time.Second, PollInterval: 50 * time.Millisecond}
}

// TestKitOnBrokenFixture is run in a child process by
// TestKitCatchesEachBreakage, against the binary in SDKTEST_BROKEN_BINARY.
func TestKitOnBrokenFixture(t *testing.T) {
	bin := os.Getenv("SDKTEST_BROKEN_BINARY")
	if bin == "" {
		t.Skip("run by TestKitCatchesEachBreakage")
	}
	sdktest.Run(t, brokenConfig(bin))
}

// The kit fails a plugin for each mistake it is meant to catch, with a
// message naming it, and passes the same plugin without the mistake (saying
// what it did, for the modes marked passes).
func TestKitCatchesEachBreakage(t *testing.T) {
	cases := []struct {
		mode, says string
		passes     bool
	}{
		{"", "the kubeconfig's API server https://127.0.0.1:", true},
		{"exec-credential", `kubeconfig not dialed: user of context "c" gets its credential by running "fixture-credential" (exec)`, true},
		{"destroy-twice", "Destroy must be idempotent", false},
		{"garbage-kubeconfig", "Kubeconfig returned something the host cannot use", false},
		{"no-field-path", `has field path ""`, false},
		{"help-restates-bounds", `field "nodes": help "worker nodes, 1 to 3" restates Min and Max`, false},
		{"print-credentials", `wrote the value of credential "token"`, false},
		{"credential-as-string", `input "tokenCredentialRef" is typed string`, false},
		{"accepts-downgrade", "Update accepted a downgrade from 1.38 to 1.37", false},
		{"update-not-idempotent", "is not idempotent: the same request gave operations", false},
		{"nothing-listens", "which does not answer: GET /version: ", false},
		{"wrong-node-count", "after Provision the plugin reports 1 worker nodes, but the cluster's API server", false},
		{"needs-host-env", "Provision: SDKTEST_HOST_ONLY is not set", false},
		{"refuses-credential-kind", "refuses the provision with the answer: invalid input: credentials.kind: is not a field of this provider; remove it", false},
	}
	for _, tc := range cases {
		t.Run("mode "+tc.mode, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "kubeopera-provider-broken")
			if out, err := exec.Command("go", "build", "-ldflags", "-X main.mode="+tc.mode, "-o", bin, "./testdata/broken").CombinedOutput(); err != nil {
				t.Fatalf("build: %v\n%s", err, out)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestKitOnBrokenFixture$", "-test.v")
			// SDKTEST_HOST_ONLY is in the test's environment, which the kit
			// passes to the plugin only through the host's allow-list.
			cmd.Env = append(os.Environ(), "SDKTEST_BROKEN_BINARY="+bin, "SDKTEST_HOST_ONLY=1")
			out, err := cmd.CombinedOutput()
			if tc.passes {
				if err != nil || !strings.Contains(string(out), tc.says) {
					t.Fatalf("the kit failed a plugin without mistakes (%v) or did not say %q:\n%s", err, tc.says, out)
				}
				return
			}
			if err == nil || !strings.Contains(string(out), tc.says) {
				t.Fatalf("the kit did not catch %s (exit %v); want a failure saying %q:\n%s", tc.mode, err, tc.says, out)
			}
		})
	}
}

func TestBuildNamesTheBinaryAsTheHostLoadsIt(t *testing.T) {
	bin := sdktest.Build(t, "./testdata/broken", "broken")
	if filepath.Base(bin) != "kubeopera-provider-broken" {
		t.Errorf("Build = %s", bin)
	}
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("built binary: %v", err)
	}
}
