package api

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/together"
)

// The first administrator needs the one-time setup secret; once one exists
// the secret is used up, and no message ever repeats it.
func TestSetupAdminNeedsTheSetupSecret(t *testing.T) {
	var done atomic.Int32
	e := newEnv(t, envOpts{setupDone: func(context.Context) { done.Add(1) }})
	req := map[string]string{"email": "ops@example.com", "username": "ops", "password": "first-admin-password"}
	var bodies []string
	for _, tc := range []struct {
		name, secret string
		want         int
	}{
		{"no secret", "", 403},
		{"a wrong secret", "not-the-secret", 403},
		{"the secret with a suffix", testSetupSecret + "x", 403},
		{"a prefix of the secret", testSetupSecret[:10], 403},
	} {
		code, body := e.setupWith(tc.secret, req)
		if code != tc.want || !strings.Contains(string(body), SetupSecretHeader) {
			t.Errorf("%s: %d %s, want %d naming %s", tc.name, code, body, tc.want, SetupSecretHeader)
		}
		bodies = append(bodies, string(body))
	}
	if e.adminExists(t) {
		t.Fatal("a call without the right secret created an admin")
	}
	code, body := e.setup(req)
	mustStatus(t, "with the secret", code, body, 201)
	if done.Load() != 1 {
		t.Errorf("SetupDone called %d times, want 1", done.Load())
	}
	for _, secret := range []string{testSetupSecret, "", "wrong"} {
		code, body := e.setupWith(secret, map[string]string{"email": "two@example.com", "username": "two", "password": "second-admin-password"})
		if code != 409 {
			t.Errorf("after the first admin, secret %q: %d %s, want 409", secret, code, body)
		}
		bodies = append(bodies, string(body))
	}
	assertNeverShown(t, append(bodies, e.logs.String()), testSetupSecret)
}

func TestSetupAdminRefusedWithoutAConfiguredSecret(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.app = New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(t), Logger: discardLogger()})
	code, body := e.setupWith("", map[string]string{"email": "ops@example.com", "username": "ops", "password": "first-admin-password"})
	if code != 403 || !strings.Contains(string(body), "KUBEOPERA_SETUP_SECRET") {
		t.Errorf("%d %s, want 403 saying to set KUBEOPERA_SETUP_SECRET", code, body)
	}
}

// Concurrent setup calls are answered without a bcrypt hash each: only the
// call that creates the admin hashes a password (50 concurrent calls used to
// hash 50 times, p50 5 s).
func TestConcurrentSetupCallsHashOnce(t *testing.T) {
	var hashes atomic.Int32
	e := newEnv(t, envOpts{hash: func(pw []byte) ([]byte, error) {
		hashes.Add(1)
		return defaultHashPassword(pw)
	}})
	const racers = 20
	codes := make([]int, racers)
	together.Run(racers, func(i int) {
		codes[i], _ = e.setup(map[string]string{"email": "ops@example.com", "username": "ops", "password": "first-admin-password"})
	})
	count := map[int]int{}
	for _, c := range codes {
		count[c]++
	}
	if count[201] != 1 || count[409] != racers-1 {
		t.Errorf("status counts %v, want one 201 and %d 409s", count, racers-1)
	}
	if n := hashes.Load(); n != 1 {
		t.Errorf("%d bcrypt hashes for %d concurrent calls, want 1", n, racers)
	}
	if code, _ := e.do(http.MethodGet, "/healthz", "", nil); code != 200 {
		t.Errorf("healthz %d", code)
	}
}
