package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// Only a valid credential of an earlier password sign-in of the same
// account lets a request past the limits of an address guessers hold.
func TestOnlyTheAccountsOwnValidCredentialIsAKnownDevice(t *testing.T) {
	eachSessionStore(t, SessionOptions{}, func(t *testing.T, e *sessionEnv) { e.knownDevices(t) })
}

func (e *sessionEnv) knownDevices(t *testing.T) {
	e.user("admin", PlatformAdmin)
	e.user("ops", Viewer)
	const home, nat = "198.51.100.20", "203.0.113.7"
	loginToken := func(user string) (string, string) {
		code, body := e.try("/api/v1/session/tokens", user, "correct-horse-battery", "X-Forwarded-For", home)
		var tok issuedToken
		if code != http.StatusCreated || json.Unmarshal(body, &tok) != nil {
			t.Fatalf("login token of %s: %d %s", user, code, body)
		}
		return tok.Token, tok.ID
	}
	session := func(user string) string {
		code, cookie, _ := e.signIn(user, "correct-horse-battery", "X-Forwarded-For", home)
		if code != http.StatusCreated {
			t.Fatalf("session of %s: %d", user, code)
		}
		return sessionCookie + "=" + cookie.Value
	}
	adminToken, _ := loginToken("admin")
	revokedToken, revokedID := loginToken("admin")
	if _, err := e.st.RevokeToken(context.Background(), revokedID, ""); err != nil {
		t.Fatal(err)
	}
	adminSession, opsSession := session("admin"), session("ops")
	opsToken, _ := loginToken("ops")
	// Guessers behind the NAT lock it for the admin account.
	e.burst(10, "admin", func(int) string { return "wrong-password-here" }, func(int) string { return nat })

	for _, tc := range []struct {
		name   string
		header []string
		want   int
	}{
		{"no credential", nil, http.StatusTooManyRequests},
		{"the admin's session", []string{"Cookie", adminSession}, http.StatusCreated},
		{"the admin's login token", []string{"Authorization", "Bearer " + adminToken}, http.StatusCreated},
		{"another user's session", []string{"Cookie", opsSession}, http.StatusTooManyRequests},
		{"another user's login token", []string{"Authorization", "Bearer " + opsToken}, http.StatusTooManyRequests},
		{"a token an administrator created", []string{"Authorization", "Bearer " + e.admin}, http.StatusTooManyRequests},
		{"a revoked login token", []string{"Authorization", "Bearer " + revokedToken}, http.StatusTooManyRequests},
		{"a made-up session", []string{"Cookie", sessionCookie + "=made-up"}, http.StatusTooManyRequests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := append([]string{"X-Forwarded-For", nat}, tc.header...)
			if code, _, _ := e.signIn("admin", "correct-horse-battery", h...); code != tc.want {
				t.Errorf("right password from the locked address with %s: %d, want %d", tc.name, code, tc.want)
			}
		})
	}
	// A known device has a budget of its own: a stolen session cookie gets
	// 5 guesses a window, not a way around the limits.
	codes := map[int]int{}
	for range 8 {
		code, _, _ := e.signIn("admin", "wrong-password-here", "X-Forwarded-For", nat, "Cookie", adminSession)
		codes[code]++
	}
	if codes[http.StatusUnauthorized] != 5 || codes[http.StatusTooManyRequests] != 3 {
		t.Errorf("8 wrong passwords with the admin's session: %v, want 5 × 401 then 429", codes)
	}
}

// `kubeopera users unlock USERNAME` clears the account's counts from every
// client and every known device.
func TestUnlockAccountClearsItsCountsFromEveryClientAndDevice(t *testing.T) {
	eachSessionStore(t, SessionOptions{}, func(t *testing.T, e *sessionEnv) {
		e.user("admin", PlatformAdmin)
		_, cookie, _ := e.signIn("admin", "correct-horse-battery", "X-Forwarded-For", "198.51.100.20")
		ways := map[string][]string{
			"from 203.0.113.7":             {"X-Forwarded-For", "203.0.113.7"},
			"from 2001:db8:1:2::9":         {"X-Forwarded-For", "2001:db8:1:2::9"},
			"with the session of a device": {"X-Forwarded-For", "203.0.113.8", "Cookie", sessionCookie + "=" + cookie.Value},
		}
		for way, h := range ways {
			for range 6 {
				e.signIn("admin", "wrong-password-here", h...)
			}
			if code, _, _ := e.signIn("admin", "correct-horse-battery", h...); code != http.StatusTooManyRequests {
				t.Fatalf("right password %s after 6 wrong: %d, want 429", way, code)
			}
		}
		if n, err := UnlockAccount(context.Background(), e.st, "admin"); err != nil || n < len(ways) {
			t.Fatalf("UnlockAccount = %d, %v; want at least %d counters", n, err, len(ways))
		}
		for way, h := range ways {
			if code, _, _ := e.signIn("admin", "correct-horse-battery", h...); code != http.StatusCreated {
				t.Errorf("right password %s after the unlock: %d, want 201", way, code)
			}
		}
	})
}
