package serve

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func noEnv(string) (string, bool) { return "", false }

// sayInto collects operator output.
func sayInto(out *strings.Builder) func(string, ...any) {
	return func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
}

// testKeys is a keyring with one new random key.
func testKeys(t *testing.T) *sealing.Keyring {
	t.Helper()
	key := make([]byte, sealing.KeySize)
	_, _ = rand.Read(key)
	kr, err := sealing.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	return kr
}

func openTestStore(t *testing.T, c Config) *store.Store {
	t.Helper()
	st, err := OpenStore(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// A local first start writes a setup secret 0600 next to the admin token
// and says where, never what; later starts reuse it; the environment wins;
// once an administrator exists it is used up and its file removed.
func TestSetupSecretLifecycle(t *testing.T) {
	ctx := context.Background()
	c := Config{DataDir: t.TempDir(), Getenv: noEnv}
	st := openTestStore(t, c)
	keys := testKeys(t)
	var out strings.Builder
	secret, err := EnsureSetupSecret(ctx, c, st, keys, sayInto(&out))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(c.DataDir, "setup-secret")
	data, err := os.ReadFile(path)
	if err != nil || strings.TrimSpace(string(data)) != secret || len(secret) < 32 {
		t.Fatalf("file %q (%v), secret of %d characters", data, err, len(secret))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("setup-secret mode %v, want 0600", fi.Mode().Perm())
	}
	if !strings.Contains(out.String(), path) || strings.Contains(out.String(), secret) {
		t.Errorf("output must name the file and not the secret:\n%s", out.String())
	}
	again, err := EnsureSetupSecret(ctx, c, st, keys, sayInto(&out))
	if err != nil || again != secret {
		t.Errorf("second start: %v, same secret %v", err, again == secret)
	}

	envSecret := "from-the-installer-0123456789"
	c.Getenv = func(k string) (string, bool) { return envSecret, k == EnvSetupSecret }
	if got, err := EnsureSetupSecret(ctx, c, st, keys, sayInto(&out)); err != nil || got != envSecret {
		t.Errorf("with %s: %v, got the env's secret %v", EnvSetupSecret, err, got == envSecret)
	}
	c.Getenv = func(k string) (string, bool) { return "short", k == EnvSetupSecret }
	if _, err := EnsureSetupSecret(ctx, c, st, keys, sayInto(&out)); err == nil || strings.Contains(err.Error(), "short") {
		t.Errorf("a short %s: %v, want an error that does not repeat it", EnvSetupSecret, err)
	}

	if err := st.CreateUser(ctx, &store.User{Email: "ops@example.com", Username: "ops", PasswordHash: "x",
		Role: "platform-admin", SuperAdmin: true}); err != nil {
		t.Fatal(err)
	}
	c.Getenv = func(k string) (string, bool) { return envSecret, k == EnvSetupSecret }
	got, err := EnsureSetupSecret(ctx, c, st, keys, sayInto(&out))
	if err != nil || got != "" {
		t.Errorf("after the admin exists: %v, a secret is still accepted: %v", err, got != "")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the used setup secret file is still there: %v", err)
	}
	if strings.Contains(out.String(), envSecret) {
		t.Errorf("output repeats the environment's secret:\n%s", out.String())
	}
}

// Every file the server writes is 0600, and one left over with a looser
// mode is tightened with a word to the operator (the admin token used to be
// reused at 0644 and called "readable by you only").
func TestServerFilesArePrivate(t *testing.T) {
	ctx := context.Background()
	c := Config{DataDir: t.TempDir(), Getenv: noEnv}
	token := filepath.Join(c.DataDir, "admin-token")
	if err := os.WriteFile(token, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(c.DataDir, "kubeopera.db")
	st := openTestStore(t, c)
	keys := testKeys(t)
	var out strings.Builder
	if err := EnsureAdminToken(ctx, c, st, sayInto(&out)); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureSetupSecret(ctx, c, st, keys, sayInto(&out)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{token, filepath.Join(c.DataDir, "setup-secret"), db, db + "-wal", db + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	st.Close()

	// An existing database made readable by others is tightened at start.
	for _, p := range []string{db, db + "-wal"} {
		if err := os.Chmod(p, 0o644); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	openTestStore(t, c)
	if fi, _ := os.Stat(db); fi.Mode().Perm() != 0o600 {
		t.Errorf("a 0644 database was left at %v", fi.Mode().Perm())
	}
}
