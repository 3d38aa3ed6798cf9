package main

import (
	"strings"
	"testing"
)

// kubeopera teams, through the API: a platform admin makes a team and
// gives a member a role there; the member sees that team and their role,
// and nothing of the default team's; removal and deletion follow, and the
// default team cannot go.
func TestTeamsThroughTheCLI(t *testing.T) {
	url, run := cliAsOps(t, t.TempDir())
	generated := strings.Fields(run("", "users", "create", "--username", "ada", "--email", "ada@example.com", "--role", "member"))[0]
	run("", "teams", "create", "team-a")
	if out := run("", "teams", "add", "team-a", "ada", "--role", "operator"); !strings.Contains(out, `ada is now operator of team "team-a"`) {
		t.Errorf("teams add:\n%s", out)
	}
	if out := run("", "teams", "members", "team-a"); !strings.Contains(out, "ada") || !strings.Contains(out, "operator") || !strings.Contains(out, "local") {
		t.Errorf("teams members:\n%s", out)
	}
	// The server asks ada for a new password at her first sign-in; with
	// --password-stdin it is the second line.
	if out := run(generated+"\n"+cliPassword+"\n", "login", url, "-u", "ada", "--password-stdin", "--context", "ada"); !strings.Contains(out, "new password set") {
		t.Errorf("login with a password to replace:\n%s", out)
	}
	run(cliPassword+"\n", "login", url, "-u", "ada", "--password-stdin", "--context", "ada")
	out := run("", "teams", "list")
	if !strings.Contains(out, "team-a") || !strings.Contains(out, "operator") || strings.Contains(out, "default") {
		t.Errorf("ada's teams list shows team-a as operator and not the default team:\n%s", out)
	}
	if _, err := runCLI(t, "", "teams", "create", "team-b"); exitCodeOf(err) != exitForbidden {
		t.Errorf("a member creating a team: %v, want exit %d", err, exitForbidden)
	}
	run("", "context", "use", "ops")
	run("", "teams", "remove", "team-a", "ada")
	if out := run("", "teams", "list", "--context", "ada"); strings.Contains(out, "team-a") {
		t.Errorf("after removal ada still sees team-a:\n%s", out)
	}
	if _, err := runCLI(t, "", "teams", "delete", "default"); err == nil {
		t.Error("deleting the default team succeeded")
	}
	if out := run("", "teams", "delete", "team-a"); !strings.Contains(out, `deleted team "team-a"`) {
		t.Errorf("teams delete:\n%s", out)
	}
}
