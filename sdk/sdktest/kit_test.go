package sdktest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// brokenConfig is the kit's configuration for the broken fixture. Its
// credential leaves "kind" out, as authors do: the kit adds it, as the
// server does, since the fixture's credential input accepts one kind.
func brokenConfig(bin string) sdktest.Config {
	return sdktest.Config{Binary: bin, ValidInputs: map[string]string{"size": "2"},
		Credentials:   sdk.Credentials{"token": "tok-sdktest-secret"},
		InvalidInputs: map[string]map[string]string{"odd size": {"size": "3"}}}
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
// message naming it, and passes the same plugin without the mistake.
func TestKitCatchesEachBreakage(t *testing.T) {
	cases := []struct{ mode, says string }{
		{"", ""},
		{"destroy-twice", "Destroy must be idempotent"},
		{"garbage-kubeconfig", "Kubeconfig returned something the host cannot use"},
		{"no-field-path", `has field path ""`},
		{"print-credentials", `wrote the value of credential "token"`},
		{"credential-as-string", `input "tokenCredentialRef" is typed string`},
		{"accepts-downgrade", "Update accepted a downgrade from 1.38 to 1.37"},
		{"update-not-idempotent", "is not idempotent: the same request gave operations"},
		{"refuses-credential-kind", "refuses the provision with the answer: invalid input: credentials.kind: is not a field of this provider; remove it"},
	}
	for _, tc := range cases {
		t.Run("mode "+tc.mode, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "kubeopera-provider-broken")
			if out, err := exec.Command("go", "build", "-ldflags", "-X main.mode="+tc.mode, "-o", bin, "./testdata/broken").CombinedOutput(); err != nil {
				t.Fatalf("build: %v\n%s", err, out)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestKitOnBrokenFixture$", "-test.v")
			cmd.Env = append(os.Environ(), "SDKTEST_BROKEN_BINARY="+bin)
			out, err := cmd.CombinedOutput()
			if tc.says == "" {
				if err != nil {
					t.Fatalf("the kit failed a plugin without mistakes: %v\n%s", err, out)
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
