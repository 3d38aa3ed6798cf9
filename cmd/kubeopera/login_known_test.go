package main

import (
	"strings"
	"testing"
)

// Logging in again sends the token of the earlier login, so the owner gets
// in while guesses from the same address (here: every request comes from
// loopback) have used up the account's attempts from it.
func TestLoginAgainGetsPastGuessesFromTheSameAddress(t *testing.T) {
	url := startCLIServer(t)
	t.Setenv("KUBEOPERA_CONFIG", t.TempDir()+"/kubeopera/config.yaml")
	t.Setenv("KUBEOPERA_SERVER", "")
	t.Setenv("KUBEOPERA_TOKEN", "")
	if out, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "ops", "--password-stdin", "--context", "lab"); err != nil {
		t.Fatalf("first login: %v\n%s", err, out)
	}
	for range 6 {
		_, _ = runCLI(t, "wrong-password\n", "login", url, "-u", "ops", "--password-stdin", "--context", "guesser")
	}
	if out, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "ops", "--password-stdin", "--context", "elsewhere"); err == nil ||
		!strings.Contains(err.Error(), "429") {
		t.Fatalf("the right password without the earlier token: %v\n%s, want 429", err, out)
	}
	if out, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "ops", "--password-stdin", "--context", "lab"); err != nil {
		t.Errorf("login again with the earlier token: %v\n%s", err, out)
	}
}
