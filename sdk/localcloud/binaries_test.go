package localcloud

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BinDir finds the binaries `make testbin` builds from anywhere below the
// checkout, and when they are not there says which are missing and the
// command that builds them.
func TestBinDirFindsTheBinariesOrSaysHowToBuildThem(t *testing.T) {
	checkout := t.TempDir()
	full := filepath.Join(checkout, "bin", "k8s", KubernetesVersion)
	if err := os.MkdirAll(full, 0o750); err != nil {
		t.Fatal(err)
	}
	for _, b := range binaries {
		if err := os.WriteFile(filepath.Join(full, b), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	deep := filepath.Join(checkout, "plugins", "mine")
	if err := os.MkdirAll(deep, 0o750); err != nil {
		t.Fatal(err)
	}
	partial := t.TempDir()
	if err := os.WriteFile(filepath.Join(partial, "etcd"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, env, wd string
		want          string // the directory, or what the error says
		fails         bool
	}{
		{name: "below the checkout", wd: deep, want: full},
		{name: "the variable names it", env: full, wd: t.TempDir(), want: full},
		{name: "outside any checkout", wd: t.TempDir(),
			want: "no bin/k8s/" + KubernetesVersion + " in ", fails: true},
		{name: "a binary missing", env: partial, wd: deep,
			want: "sandbox binaries missing in " + partial + ": kube-apiserver, kube-controller-manager, kube-scheduler, kwok; run 'make testbin'", fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(TestbinEnv, tc.env)
			t.Chdir(tc.wd)
			got, err := BinDir()
			if (err != nil) != tc.fails {
				t.Fatalf("BinDir() = %q, %v", got, err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "make testbin") {
					t.Fatalf("BinDir() = %v, want %q and the command 'make testbin'", err, tc.want)
				}
				return
			}
			if got != tc.want {
				t.Errorf("BinDir() = %s, want %s", got, tc.want)
			}
		})
	}
}
