package serve

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"path/filepath"

	"github.com/ochestra-tech/kubeopera/server/api"
)

// AdminPasswordFile is where EnsureSuperAdmin writes the generated password,
// next to the admin token.
func AdminPasswordFile(c Config) string { return filepath.Join(c.DataDir, "admin-password") }

// EnsureSuperAdmin creates the super-admin username with a random password
// written to AdminPasswordFile (mode 0600) when there is no super-admin yet,
// so whoever started a local platform can sign in to the dashboard without
// the setup secret. The password itself is never printed. It returns the
// file's path, or "" when a super-admin already existed.
func EnsureSuperAdmin(ctx context.Context, c Config, username, email string) (string, error) {
	st, err := OpenStore(ctx, c)
	if err != nil {
		return "", err
	}
	defer st.Close()
	if exists, err := st.SuperAdminExists(ctx); err != nil || exists {
		return "", err
	}
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate the administrator's password: %w", err)
	}
	password := base64.RawURLEncoding.EncodeToString(b)
	u, err := api.NewUser(username, email, password, api.PlatformAdmin)
	if err != nil {
		return "", fmt.Errorf("administrator %q: %w", username, err)
	}
	u.SuperAdmin = true
	path := AdminPasswordFile(c)
	// The file first: a user whose password nobody has is worse than a
	// file without a user.
	if err := writePrivate(path, []byte(password+"\n")); err != nil {
		return "", fmt.Errorf("write the administrator's password: %w", err)
	}
	if err := st.CreateUser(ctx, u); err != nil {
		return "", fmt.Errorf("create the administrator %q: %w", username, err)
	}
	return path, nil
}
