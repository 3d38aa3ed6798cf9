package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/serve"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func runTokens(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newTokensCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String() + errOut.String(), err
}

func TestTokensCreateListRevoke(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBEOPERA_DATABASE_URL", "")
	out, err := runTokens(t, "create", "--data-dir", dir, "--name", "ci", "--role", "viewer", "--ttl", "24h")
	if err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	token := strings.Fields(out)[0]
	if !strings.HasPrefix(token, "kop_") {
		t.Fatalf("create printed %q", out)
	}
	out, err = runTokens(t, "list", "--data-dir", dir)
	if err != nil || !strings.Contains(out, "ci") || !strings.Contains(out, "active") || strings.Contains(out, token) {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if out, err = runTokens(t, "revoke", "--data-dir", dir, "ci"); err != nil || !strings.Contains(out, `revoked viewer token "ci"`) {
		t.Fatalf("revoke: %v\n%s", err, out)
	}
	if out, _ = runTokens(t, "list", "--data-dir", dir); !strings.Contains(out, "revoked ") {
		t.Errorf("list after revoke:\n%s", out)
	}
	if _, err = runTokens(t, "revoke", "--data-dir", dir, "nope"); err == nil {
		t.Error("revoking an unknown token succeeded")
	}
	if _, err = runTokens(t, "create", "--data-dir", dir, "--name", "x", "--ttl", "-1h"); err == nil {
		t.Error("a negative --ttl was accepted")
	}
}

func TestAuditCommandListsEvents(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBEOPERA_DATABASE_URL", "")
	if out, err := runTokens(t, "create", "--data-dir", dir, "--name", "ci"); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	st, err := serve.OpenStore(context.Background(), serve.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddAuditEvent(context.Background(), &store.AuditEvent{Actor: "ci", Method: "DELETE",
		Route: "/api/v1/clusters/:id", Target: "c-1", Status: 204, RequestID: "r-1"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	cmd := newAuditCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--data-dir", dir, "--actor", "ci"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "DELETE /api/v1/clusters/:id") || !strings.Contains(out.String(), "c-1") {
		t.Errorf("audit output:\n%s", out.String())
	}
}

// A token is found by its ID before any name, and a name shared by several
// active tokens is refused rather than guessed.
func TestResolveTokenPrefersIDsAndRefusesAmbiguousNames(t *testing.T) {
	tokens := []tokenRef{
		{ID: "id-1", Name: "ci", Active: true},
		{ID: "id-2", Name: "id-1", Active: true},
		{ID: "id-3", Name: "deploy", Active: true},
		{ID: "id-4", Name: "deploy", Active: true},
		{ID: "id-5", Name: "old", Active: false},
	}
	for _, c := range []struct {
		name, ref, wantID string
		wantCode          int
	}{
		{"an ID wins over a name equal to it", "id-1", "id-1", exitOK},
		{"a unique active name is found", "ci", "id-1", exitOK},
		{"a name two active tokens share is refused", "deploy", "", exitUsage},
		{"a revoked token is not found by name", "old", "", exitNotFound},
		{"an unknown ref is not found", "nope", "", exitNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := resolveToken(tokens, c.ref)
			if got.ID != c.wantID || exitCodeOf(err) != c.wantCode {
				t.Errorf("resolveToken(%q) = %q, %v; want %q, exit %d", c.ref, got.ID, err, c.wantID, c.wantCode)
			}
		})
	}
}
