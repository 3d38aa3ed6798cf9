package sealing

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// env returns a getenv backed by m, leaving the process environment alone.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// writeFile writes content to a new file in a temp dir with the given mode.
func writeFile(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode is masked by umask
		t.Fatal(err)
	}
	return path
}

func TestLoadKeyring(t *testing.T) {
	keyA, keyB, keyC := testKey(0xA), testKey(0xB), testKey(0xC)
	std := base64.StdEncoding.EncodeToString
	rawURL := base64.RawURLEncoding.EncodeToString
	// A key whose base64 uses the characters that differ between alphabets.
	keyURL := []byte(strings.Repeat("\xfb\xff\xbf", 10) + "\xfb\xff")
	fileA := writeFile(t, "\n  "+std(keyA)+"\n\n", 0o600)
	fileB := writeFile(t, hex.EncodeToString(keyB)+"\n", 0o400)

	tests := []struct {
		name        string
		env         map[string]string
		wantPrimary []byte
		wantOld     [][]byte
	}{
		{"env standard base64", map[string]string{EnvKey: std(keyA)}, keyA, nil},
		{"env raw URL base64", map[string]string{EnvKey: rawURL(keyURL)}, keyURL, nil},
		{"env padded URL base64", map[string]string{EnvKey: base64.URLEncoding.EncodeToString(keyURL)}, keyURL, nil},
		{"env raw standard base64", map[string]string{EnvKey: base64.RawStdEncoding.EncodeToString(keyURL)}, keyURL, nil},
		{"env lowercase hex", map[string]string{EnvKey: hex.EncodeToString(keyA)}, keyA, nil},
		{"env uppercase hex", map[string]string{EnvKey: strings.ToUpper(hex.EncodeToString(keyA))}, keyA, nil},
		{"env surrounding whitespace ignored", map[string]string{EnvKey: " \t" + std(keyA) + "\n"}, keyA, nil},
		{"file base64 with surrounding whitespace", map[string]string{EnvKeyFile: fileA}, keyA, nil},
		{"file hex, mode 0400", map[string]string{EnvKeyFile: fileB}, keyB, nil},
		{"env wins over file", map[string]string{EnvKey: std(keyC), EnvKeyFile: fileA}, keyC, nil},
		{"empty env falls back to file", map[string]string{EnvKey: "", EnvKeyFile: fileA}, keyA, nil},
		{"old keys in mixed encodings", map[string]string{
			EnvKey:     std(keyC),
			EnvOldKeys: std(keyA) + ", " + hex.EncodeToString(keyB),
		}, keyC, [][]byte{keyA, keyB}},
		{"old keys with empty entries", map[string]string{
			EnvKey:     std(keyC),
			EnvOldKeys: "," + rawURL(keyA) + ",,",
		}, keyC, [][]byte{keyA}},
		{"empty old keys", map[string]string{EnvKey: std(keyC), EnvOldKeys: ""}, keyC, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := LoadKeyring(env(tt.env))
			if err != nil {
				t.Fatalf("LoadKeyring: %v", err)
			}
			if got, want := k.PrimaryID(), KeyID(tt.wantPrimary); got != want {
				t.Errorf("PrimaryID = %q, want %q", got, want)
			}
			for i, old := range tt.wantOld {
				if !k.Has(KeyID(old)) {
					t.Errorf("old key %d missing from keyring", i+1)
				}
			}
			if got, want := len(k.aeads), 1+len(tt.wantOld); got != want {
				t.Errorf("keyring holds %d keys, want %d", got, want)
			}
		})
	}
}

func TestLoadKeyringErrors(t *testing.T) {
	// Recognisable values that must never appear in an error message.
	const (
		secretShort  = "UEFTU1dPUkQtU0VDUkVULTE2Qg==" // base64 of the 19 bytes "PASSWORD-SECRET-16B"
		secretBadEnc = "not*a*key!MY-SECRET-VALUE"
		secretHex    = "deadbeefcafef00ddeadbeefcafef00d" // 16 bytes of hex
	)
	good := base64.StdEncoding.EncodeToString(testKey(1))
	open := writeFile(t, good, 0o644)
	groupOnly := writeFile(t, good, 0o640)
	short := writeFile(t, secretShort+"\n", 0o600)
	big := writeFile(t, strings.Repeat(good+"\n", 200), 0o600)
	dir := t.TempDir()

	tests := []struct {
		name string
		env  map[string]string
		want []string
		is   error
	}{
		{"nothing set", nil,
			[]string{"no encryption key: set KUBEOPERA_ENCRYPTION_KEY (32 bytes, base64) or KUBEOPERA_ENCRYPTION_KEY_FILE"}, ErrNoKey},
		{"only whitespace set", map[string]string{EnvKey: "  ", EnvKeyFile: " "}, []string{"no encryption key"}, ErrNoKey},
		{"old keys without a primary", map[string]string{EnvOldKeys: good}, []string{"no encryption key"}, ErrNoKey},
		{"env base64 of wrong length", map[string]string{EnvKey: secretShort},
			[]string{EnvKey + ": key decodes from base64 to 19 bytes; it must be exactly 32 bytes"}, nil},
		{"env hex of wrong length", map[string]string{EnvKey: secretHex},
			[]string{EnvKey + ": key decodes from hex to 16 bytes; it must be exactly 32 bytes"}, nil},
		{"env bad encoding", map[string]string{EnvKey: secretBadEnc},
			[]string{EnvKey + ": not a valid key encoding", "base64", "64 hexadecimal characters"}, nil},
		{"file readable by others", map[string]string{EnvKeyFile: open},
			[]string{open, "mode 0644", "chmod 600 " + open}, nil},
		{"file readable by group", map[string]string{EnvKeyFile: groupOnly},
			[]string{"mode 0640", "chmod 600 " + groupOnly}, nil},
		{"file of wrong length", map[string]string{EnvKeyFile: short},
			[]string{short, EnvKeyFile, "key decodes from base64 to 19 bytes"}, nil},
		{"file missing", map[string]string{EnvKeyFile: filepath.Join(dir, "absent")},
			[]string{EnvKeyFile, "no such file"}, os.ErrNotExist},
		{"file is a directory", map[string]string{EnvKeyFile: dir}, []string{"not a regular file"}, nil},
		{"file too large", map[string]string{EnvKeyFile: big}, []string{"over 4096 bytes", "one key"}, nil},
		{"bad old key names its entry", map[string]string{EnvKey: good, EnvOldKeys: good + "," + secretBadEnc},
			[]string{EnvOldKeys + " entry 2: not a valid key encoding"}, nil},
		{"short old key names its entry", map[string]string{EnvKey: good, EnvOldKeys: secretShort},
			[]string{EnvOldKeys + " entry 1: key decodes from base64 to 19 bytes"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && strings.Contains(tt.name, "readable") {
				t.Skip("no group/other permission bits on Windows")
			}
			k, err := LoadKeyring(env(tt.env))
			if err == nil {
				t.Fatalf("LoadKeyring succeeded with primary %s, want an error", k.PrimaryID())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			for _, secret := range []string{secretShort, secretBadEnc, "MY-SECRET-VALUE", secretHex, good} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q contains key material %q", err, secret)
				}
			}
		})
	}
}
