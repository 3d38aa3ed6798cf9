package serve

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// EnvSetupSecret names the variable holding the one-time secret that
// POST /api/v1/setup/admin must carry (header X-KubeOpera-Setup-Secret).
const EnvSetupSecret = "KUBEOPERA_SETUP_SECRET"

// minSetupSecretLen keeps a configured secret from being guessable.
const minSetupSecretLen = 16

// setupSecretFile is where a local first start keeps the generated secret.
func (c *Config) setupSecretFile() string { return filepath.Join(c.DataDir, "setup-secret") }

// EnsureSetupSecret returns the setup secret while the first administrator
// does not exist yet: the one in KUBEOPERA_SETUP_SECRET, else the one in
// <DataDir>/setup-secret, generated (mode 0600) at the first start. Once an
// administrator exists it is used up: the file is removed and "" returned.
// The secret itself is never printed.
func EnsureSetupSecret(ctx context.Context, c Config, st *store.Store, say func(string, ...any)) (string, error) {
	path := c.setupSecretFile()
	exists, err := st.SuperAdminExists(ctx)
	if err != nil {
		return "", err
	}
	if exists {
		RemoveSetupSecret(path, say)
		return "", nil
	}
	if secret, ok := c.Getenv(EnvSetupSecret); ok && secret != "" {
		if len(secret) < minSetupSecretLen {
			return "", fmt.Errorf("%s must be at least %d characters", EnvSetupSecret, minSetupSecretLen)
		}
		return secret, nil
	}
	if err := ensurePrivate(path, say); err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(data))) >= minSetupSecretLen {
		say("the first administrator does not exist yet: create it with the setup secret in %s "+
			"(header %s on POST /api/v1/setup/admin)", path, api.SetupSecretHeader)
		return strings.TrimSpace(string(data)), nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read the setup secret: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate the setup secret: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(b)
	if err := writePrivate(path, []byte(secret+"\n")); err != nil {
		return "", fmt.Errorf("write the setup secret: %w", err)
	}
	say("generated a one-time setup secret for the first administrator in %s (readable by you only); "+
		"send it in header %s to POST /api/v1/setup/admin", path, api.SetupSecretHeader)
	return secret, nil
}

// RemoveSetupSecret deletes a used-up setup secret's file, if any.
func RemoveSetupSecret(path string, say func(string, ...any)) {
	if err := os.Remove(path); err == nil {
		say("removed the used setup secret %s: the first administrator exists", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		say("could not remove the used setup secret %s: %v; delete it by hand", path, err)
	}
}
