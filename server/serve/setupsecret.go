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
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// EnvSetupSecret names the variable holding the one-time secret that
// POST /api/v1/setup/admin must carry (header X-KubeOpera-Setup-Secret).
const EnvSetupSecret = "KUBEOPERA_SETUP_SECRET"

// minSetupSecretLen keeps a configured secret from being guessable.
const minSetupSecretLen = 16

// setupSecretAAD binds the sealed setup secret to its row, so no other
// sealed value can be passed off as it.
var setupSecretAAD = []byte("kubeopera/setup-secret")

// setupSecretFile is where a server keeps the setup secret for whoever
// runs it.
func (c *Config) setupSecretFile() string { return filepath.Join(c.DataDir, "setup-secret") }

// EnsureSetupSecret returns the setup secret while the first administrator
// does not exist yet: the one in KUBEOPERA_SETUP_SECRET, else the one
// stored in the database, sealed with keys. The first server to start
// stores it (one left in <DataDir>/setup-secret by an older version, else a
// new one); servers sharing the database use that same one. Every server
// writes it to <DataDir>/setup-secret (mode 0600), so whoever runs any of
// them can read it. Once an administrator exists it is used up: file and
// row are removed and "" returned. The secret itself is never printed.
func EnsureSetupSecret(ctx context.Context, c Config, st *store.Store, keys *sealing.Keyring, say func(string, ...any)) (string, error) {
	path := c.setupSecretFile()
	exists, err := st.SuperAdminExists(ctx)
	if err != nil {
		return "", err
	}
	if exists {
		RemoveSetupSecret(ctx, st, path, say)
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
	candidate, generated, err := setupSecretCandidate(path)
	if err != nil {
		return "", err
	}
	secret, created, err := claimSetupSecret(ctx, st, keys, candidate)
	if err != nil {
		return "", err
	}
	if candidate != secret || generated {
		if err := writePrivate(path, []byte(secret+"\n")); err != nil {
			return "", fmt.Errorf("write the setup secret: %w", err)
		}
	}
	if created && generated {
		say("generated a one-time setup secret for the first administrator in %s (readable by you only); "+
			"send it in header %s to POST /api/v1/setup/admin", path, api.SetupSecretHeader)
	} else {
		say("the first administrator does not exist yet: create it with the setup secret in %s "+
			"(header %s on POST /api/v1/setup/admin)", path, api.SetupSecretHeader)
	}
	return secret, nil
}

// setupSecretCandidate is the secret this server offers to store: the one
// in its file, if any (kept across an upgrade), else a new one.
func setupSecretCandidate(path string) (secret string, generated bool, err error) {
	data, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(data))) >= minSetupSecretLen {
		return strings.TrimSpace(string(data)), false, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", false, fmt.Errorf("read the setup secret: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", false, fmt.Errorf("generate the setup secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), true, nil
}

// claimSetupSecret stores candidate sealed unless the database holds a
// setup secret already, and returns the stored one opened.
func claimSetupSecret(ctx context.Context, st *store.Store, keys *sealing.Keyring, candidate string) (string, bool, error) {
	sealed, keyID, err := keys.Seal([]byte(candidate), setupSecretAAD)
	if err != nil {
		return "", false, fmt.Errorf("seal the setup secret: %w", err)
	}
	row, created, err := st.ClaimSetupSecret(ctx, &store.SetupSecret{Ciphertext: sealed, KeyID: keyID})
	if err != nil {
		return "", false, err
	}
	if !keys.Has(row.KeyID) {
		return "", false, fmt.Errorf("the stored setup secret was sealed with key %s, which is not configured: "+
			"set %s to that key, or list it in %s after a rotation", row.KeyID, sealing.EnvKey, sealing.EnvOldKeys)
	}
	plain, err := keys.Open(row.Ciphertext, row.KeyID, setupSecretAAD)
	if err != nil {
		return "", false, fmt.Errorf("open the stored setup secret: %w", err)
	}
	return string(plain), created, nil
}

// RemoveSetupSecret deletes a used-up setup secret: its row and this
// server's file, if any. Other servers remove their files when they next
// start; the secret no longer works anywhere, since an administrator
// exists.
func RemoveSetupSecret(ctx context.Context, st *store.Store, path string, say func(string, ...any)) {
	if err := st.DeleteSetupSecret(ctx); err != nil {
		say("could not delete the used setup secret from the database: %v", err)
	}
	if err := os.Remove(path); err == nil {
		say("removed the used setup secret %s: the first administrator exists", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		say("could not remove the used setup secret %s: %v; delete it by hand", path, err)
	}
}
