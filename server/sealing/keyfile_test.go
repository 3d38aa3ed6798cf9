package sealing

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestGenerateKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "nested", "encryption.key")
	if err := GenerateKeyFile(path); err != nil {
		t.Fatalf("GenerateKeyFile: %v", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if perm := info.Mode().Perm(); perm != 0o600 {
			t.Errorf("key file mode = %04o, want 0600", perm)
		}
		dirInfo, err := os.Stat(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		if perm := dirInfo.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("created directory mode = %04o, want no group/other access", perm)
		}
	}

	k, err := LoadKeyring(env(map[string]string{EnvKeyFile: path}))
	if err != nil {
		t.Fatalf("LoadKeyring of the generated file: %v", err)
	}

	other := filepath.Join(filepath.Dir(path), "second.key")
	if err := GenerateKeyFile(other); err != nil {
		t.Fatal(err)
	}
	k2, err := LoadKeyring(env(map[string]string{EnvKeyFile: other}))
	if err != nil {
		t.Fatal(err)
	}
	if k.PrimaryID() == k2.PrimaryID() {
		t.Error("two generated keys are identical")
	}
}

func TestGenerateKeyFileRefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "encryption.key")
	const existing = "existing key, must survive\n"
	if err := os.WriteFile(path, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	err := GenerateKeyFile(path)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("GenerateKeyFile error = %v, want one wrapping fs.ErrExist", err)
	}
	if !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q should name the file and say it exists", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != existing {
		t.Errorf("existing file changed to %q", got)
	}
}
