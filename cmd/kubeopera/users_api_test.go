package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// kubeopera users goes through the API as the logged-in admin: create
// (with a generated password the user must replace), list, tokens,
// disable and enable, reset, end sessions, revoke a token, delete; a
// disabled user's token stops at once. The break-glass path on the
// database still works while the server runs, and keeps the last admin.
func TestUsersThroughTheAPIAndTheBreakGlassPath(t *testing.T) {
	dir := t.TempDir()
	url, run := cliAsOps(t, dir)
	generated := strings.Fields(run("", "users", "create", "--username", "ada", "--email", "ada@example.com", "--role", "viewer"))[0]
	var users []apiclient.User
	if err := json.Unmarshal([]byte(run("", "users", "list", "-o", "json")), &users); err != nil || len(users) != 3 {
		t.Fatalf("users list: %v %+v", err, users)
	}
	if _, err := runCLI(t, generated+"\n", "login", url, "-u", "ada", "--password-stdin", "--context", "ada"); exitCodeOf(err) != exitForbidden {
		t.Errorf("ada's login before choosing a password: %v, want exit %d", err, exitForbidden)
	}
	cl, err := newAPIClient(url, "")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cl.ChangeOwnPasswordWithResponse(context.Background(),
		apiclient.PasswordChangeRequest{Username: "ada", Password: generated, NewPassword: cliPassword})
	if err := expect(resp, err, http.StatusNoContent); err != nil {
		t.Fatalf("ada chooses a password: %v", err)
	}
	run(cliPassword+"\n", "login", url, "-u", "ada", "--password-stdin", "--context", "ada")
	run("", "context", "use", "ops")
	if out := run("", "users", "tokens", "ada"); !strings.Contains(out, "login:ada") || !strings.Contains(out, "active") {
		t.Errorf("users tokens ada:\n%s", out)
	}
	if out := run("", "users", "disable", "ada"); !strings.Contains(out, `disabled user "ada"`) {
		t.Errorf("users disable:\n%s", out)
	}
	if _, err := runCLI(t, "", "clusters", "list", "--context", "ada"); exitCodeOf(err) != exitAuth {
		t.Errorf("a disabled user's token: %v, want exit %d", err, exitAuth)
	}
	run("", "users", "enable", "ada")
	newPassword := strings.TrimSpace(strings.SplitN(run("", "users", "reset-password", "ada"), "\n", 2)[0])
	if len(newPassword) < 16 || !strings.Contains(run("", "users", "list"), "must change password") {
		t.Errorf("users reset-password printed %q; the list should say ada must change her password", newPassword)
	}
	if out := run("", "users", "end-sessions", "ada"); !strings.Contains(out, `ended 0 sessions of user "ada" and revoked 0 tokens`) {
		t.Errorf("users end-sessions:\n%s", out)
	}
	if _, err := runCLI(t, "", "users", "revoke-token", "ada", "00000000-0000-0000-0000-000000000000"); exitCodeOf(err) != exitNotFound {
		t.Errorf("revoking a token ada does not have: %v, want exit %d", err, exitNotFound)
	}
	run("", "users", "delete", "ada")
	if _, err := runCLI(t, "", "users", "disable", "ada"); exitCodeOf(err) != exitNotFound {
		t.Errorf("disable a deleted user: %v, want exit %d", err, exitNotFound)
	}
	// Break glass: on the database, while the server runs.
	if out := run("", "users", "disable", "--data-dir", dir, "eve"); !strings.Contains(out, `disabled user "eve"`) {
		t.Errorf("users disable --data-dir:\n%s", out)
	}
	if _, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "eve", "--password-stdin", "--context", "eve"); exitCodeOf(err) != exitForbidden {
		t.Errorf("eve's login once disabled on the database: %v, want exit %d", err, exitForbidden)
	}
	if out, err := runCLI(t, "", "users", "delete", "--data-dir", dir, "ops"); err == nil || !strings.Contains(err.Error(), "last enabled platform admin") {
		t.Errorf("deleting the last admin on the database: %v\n%s", err, out)
	}
	var ada apiclient.User
	for _, u := range users {
		if u.Username == "ada" {
			ada = u
		}
	}
	out := run("", "audit", "--target", ada.Id)
	for _, want := range []string{"POST /api/v1/users/:id/disable", "POST /api/v1/users/:id/password-reset", "DELETE /api/v1/users/:id", "login:ops"} {
		if !strings.Contains(out, want) {
			t.Errorf("the audit log of ada lacks %q:\n%s", want, out)
		}
	}
}

// cliAsOps starts a server whose data is in dir, points the CLI at a
// configuration of its own, and logs in as the platform admin ops under
// the context "ops". run runs a CLI command that must succeed.
func cliAsOps(t *testing.T, dir string) (url string, run func(stdin string, args ...string) string) {
	t.Helper()
	url = startCLIServerIn(t, dir)
	t.Setenv("KUBEOPERA_CONFIG", t.TempDir()+"/config.yaml")
	t.Setenv("KUBEOPERA_SERVER", "")
	t.Setenv("KUBEOPERA_TOKEN", "")
	t.Setenv("KUBEOPERA_DATA_DIR", "")
	run = func(stdin string, args ...string) string {
		t.Helper()
		out, err := runCLI(t, stdin, args...)
		if err != nil {
			t.Fatalf("kubeopera %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	run(cliPassword+"\n", "login", url, "-u", "ops", "--password-stdin", "--context", "ops")
	return url, run
}
