package serve

import (
	"context"
	"os"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// A local platform's first start makes a super-admin whose password is in a
// 0600 file next to the admin token, usable to sign in; a second start
// leaves the user and the file as they are.
func TestEnsureSuperAdminWritesAPrivatePasswordOnceAndUsesUpTheSetupSecret(t *testing.T) {
	ctx := context.Background()
	c := Config{DataDir: t.TempDir(), Getenv: noEnv}
	path, err := EnsureSuperAdmin(ctx, c, "admin", "admin@kubeopera.test")
	if err != nil {
		t.Fatal(err)
	}
	if path != AdminPasswordFile(c) {
		t.Fatalf("path %q, want %q", path, AdminPasswordFile(c))
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("password file: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	password := strings.TrimSpace(string(data))
	st := openTestStore(t, c)
	keys := testKeys(t)
	u, err := st.UserByUsername(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if !u.SuperAdmin || u.Role != "platform-admin" {
		t.Errorf("user: super-admin %v, role %q", u.SuperAdmin, u.Role)
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) != nil {
		t.Error("the password in the file does not match the stored hash")
	}
	var out strings.Builder
	if secret, err := EnsureSetupSecret(ctx, c, st, keys, sayInto(&out)); err != nil || secret != "" {
		t.Errorf("setup secret after the super-admin exists: %v, still offered: %v", err, secret != "")
	}

	again, err := EnsureSuperAdmin(ctx, c, "admin", "admin@kubeopera.test")
	if err != nil || again != "" {
		t.Errorf("second start: %v, path %q, want none", err, again)
	}
	if data2, _ := os.ReadFile(path); string(data2) != string(data) {
		t.Error("a second start rewrote the password file")
	}
}
