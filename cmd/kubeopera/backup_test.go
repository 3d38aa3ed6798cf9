package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

func runBackup(args ...string) (string, error) {
	cmd := newBackupCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestBackupCopiesTheSQLiteDatabaseTheStoreOpens(t *testing.T) {
	ctx := context.Background()
	t.Setenv("KUBEOPERA_DATABASE_URL", "")
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "kubeopera.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateToken(ctx, &store.Token{Name: "ci", Role: "viewer", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if out, err := runBackup("--data-dir", dir, copyPath); err != nil || !strings.Contains(out, "encryption key") {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	restored, err := store.Open(ctx, copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if tok, err := restored.TokenByHash(ctx, "h"); err != nil || tok.Name != "ci" {
		t.Errorf("token in the copy: %+v, %v", tok, err)
	}
	if out, err := runBackup("--data-dir", dir, copyPath); err == nil {
		t.Errorf("a second backup over the copy succeeded:\n%s", out)
	}
}

func TestBackupRefusesPostgresAndAMissingDatabase(t *testing.T) {
	for name, args := range map[string][]string{
		"postgres names pg_dump":        {"--database", "postgres://u@127.0.0.1:1/db", "x.db"},
		"missing file names --data-dir": {"--data-dir", t.TempDir(), filepath.Join(t.TempDir(), "x.db")},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runBackup(args...)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitUsage {
				t.Fatalf("err = %v; want a usage error", err)
			}
			if want := strings.Fields(name)[len(strings.Fields(name))-1]; !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v; want it to name %s", err, want)
			}
		})
	}
}
