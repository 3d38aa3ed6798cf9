package sealing

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// Configuration variables read by LoadKeyring.
const (
	// EnvKey holds the primary key itself.
	EnvKey = "KUBEOPERA_ENCRYPTION_KEY"
	// EnvKeyFile names a file holding the primary key; used when EnvKey is
	// unset or empty.
	EnvKeyFile = "KUBEOPERA_ENCRYPTION_KEY_FILE"
	// EnvOldKeys holds comma-separated older keys that only open data.
	EnvOldKeys = "KUBEOPERA_ENCRYPTION_OLD_KEYS"
)

// maxKeyFileSize bounds how much of a key file is read; a key file holds one
// key of at most 64 characters plus whitespace.
const maxKeyFileSize = 4096

// errBadEncoding says which encodings are accepted without echoing the value.
var errBadEncoding = errors.New("not a valid key encoding: use base64 (standard or URL-safe, padding optional) " +
	"of 32 bytes, or 64 hexadecimal characters")

// LoadKeyring builds the keyring from configuration looked up with getenv
// (os.LookupEnv in production; a map in tests, so the process environment
// is not touched).
//
// The primary key comes from EnvKey or, when that is unset or empty, from
// the file named by EnvKeyFile; the file must not be accessible to group or
// other users. Older keys come from EnvOldKeys. Every key may be base64
// (standard or URL-safe, padded or not) or 64 hex characters; surrounding
// whitespace is ignored. Errors name the source but never contain key
// material. When no primary key is configured the error wraps ErrNoKey.
//
// It takes no context: it reads at most one small local file, which cannot
// be cancelled.
func LoadKeyring(getenv func(string) (string, bool)) (*Keyring, error) {
	primary, err := loadPrimary(getenv)
	if err != nil {
		return nil, err
	}
	old, err := loadOldKeys(getenv)
	if err != nil {
		return nil, err
	}
	k, err := NewKeyring(primary, old...)
	if err != nil {
		return nil, fmt.Errorf("building the keyring: %w", err)
	}
	return k, nil
}

func loadPrimary(getenv func(string) (string, bool)) ([]byte, error) {
	if v, _ := getenv(EnvKey); strings.TrimSpace(v) != "" {
		key, err := decodeKey(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvKey, err)
		}
		return key, nil
	}
	path, _ := getenv(EnvKeyFile)
	if strings.TrimSpace(path) == "" {
		return nil, ErrNoKey
	}
	text, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	key, err := decodeKey(text)
	if err != nil {
		return nil, fmt.Errorf("encryption key file %s (%s): %w", path, EnvKeyFile, err)
	}
	return key, nil
}

func loadOldKeys(getenv func(string) (string, bool)) ([][]byte, error) {
	v, _ := getenv(EnvOldKeys)
	var keys [][]byte
	for i, field := range strings.Split(v, ",") {
		if strings.TrimSpace(field) == "" {
			continue // tolerate "a,b," and an empty variable
		}
		key, err := decodeKey(field)
		if err != nil {
			return nil, fmt.Errorf("%s entry %d: %w", EnvOldKeys, i+1, err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// readKeyFile reads a key file after checking, on the open descriptor, that
// only its owner can access it.
func readKeyFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("opening encryption key file named by %s: %w", EnvKeyFile, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("checking encryption key file %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("encryption key file %s (%s) is not a regular file", path, EnvKeyFile)
	}
	// Windows has no group/other bits; Stat reports 0666 for any writable file.
	if perm := info.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return "", fmt.Errorf("encryption key file %s has mode %04o, so group or other users can access it: run `chmod 600 %s`",
			path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return "", fmt.Errorf("reading encryption key file %s: %w", path, err)
	}
	if len(data) > maxKeyFileSize {
		return "", fmt.Errorf("encryption key file %s is over %d bytes; it must hold one key and nothing else",
			path, maxKeyFileSize)
	}
	return string(data), nil
}

// decodeKey decodes one key. Errors say what was wrong and never include
// the input.
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	// An even-length run of hex digits is hex: base64 keys of 32 bytes have
	// an odd length unpadded or end in '=' padded, so the two never collide.
	if isHex(s) && len(s)%2 == 0 {
		key, err := hex.DecodeString(s)
		if err != nil {
			return nil, errBadEncoding
		}
		if len(key) != KeySize {
			return nil, &KeyLengthError{Got: len(key), Encoding: "hex"}
		}
		return key, nil
	}
	for _, enc := range []*base64.Encoding{
		base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding,
	} {
		key, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		if len(key) != KeySize {
			return nil, &KeyLengthError{Got: len(key), Encoding: "base64"}
		}
		return key, nil
	}
	return nil, errBadEncoding
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}
