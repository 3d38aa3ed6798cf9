package sealing

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// GenerateKeyFile writes a new random key, base64-encoded, to path with mode
// 0600, creating parent directories with mode 0700. It refuses to replace an
// existing file, since data sealed with that key would become unreadable;
// the error then wraps fs.ErrExist.
//
// It takes no context: it writes one small local file.
func GenerateKeyFile(path string) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating the directory for encryption key file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("encryption key file %s already exists; refusing to overwrite it because data sealed with it would become unreadable: %w",
			path, fs.ErrExist)
	}
	if err != nil {
		return fmt.Errorf("creating encryption key file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("closing encryption key file %s: %w", path, cerr)
		}
		if err != nil {
			_ = os.Remove(path) // leave no half-written key to be loaded later
		}
	}()
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("reading random key bytes: %w", err)
	}
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		return fmt.Errorf("writing encryption key file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing encryption key file %s: %w", path, err)
	}
	return nil
}
