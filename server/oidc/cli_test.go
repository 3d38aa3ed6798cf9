package oidc_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/oidc"
	"github.com/ochestra-tech/kubeopera/server/sealing"
)

// A CLI's code opens only with its verifier, before its expiry, as made:
// anything else is ErrCLICode.
func TestCLICodeOpensOnlyWithItsVerifierBeforeItsExpiry(t *testing.T) {
	keys, err := sealing.NewKeyring(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	const verifier = "the-verifier-the-cli-keeps-0123456789-abcdefgh"
	now := time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)
	code, err := oidc.SealCLICode(keys, oidc.CLICode{UserID: "u1", Challenge: oidc.Challenge(verifier), Expires: now.Add(oidc.CLICodeLifetime), Nonce: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := oidc.OpenCLICode(keys, code, verifier, now.Add(oidc.CLICodeLifetime-time.Second)); err != nil || c.UserID != "u1" {
		t.Fatalf("the code with its verifier in time: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		name, code, verifier string
		at                   time.Time
	}{
		{"at its expiry", code, verifier, now.Add(oidc.CLICodeLifetime)},
		{"with another verifier", code, verifier + "x", now},
		{"the challenge sent as the verifier", code, oidc.Challenge(verifier), now},
		{"tampered with", code[:len(code)-2] + "AA", verifier, now},
		{"not a code", "nonsense", verifier, now},
	} {
		if _, err := oidc.OpenCLICode(keys, tc.code, tc.verifier, tc.at); !errors.Is(err, oidc.ErrCLICode) {
			t.Errorf("%s: %v, want ErrCLICode", tc.name, err)
		}
	}
}

func TestOnlyLoopbackRedirectsWithAPortAreAccepted(t *testing.T) {
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:8000/callback": true, "http://[::1]:8000/cb": true, "http://127.0.0.2:8000/": true,
		"http://localhost:8000/callback": false, "https://127.0.0.1:8000/": false, "http://127.0.0.1/": false,
		"http://192.168.1.5:8000/": false, "http://evil.example.com:8000/": false, "http://a@127.0.0.1:8000/": false,
		"http://127.0.0.1:8000/#x": false, "": false,
	} {
		if err := oidc.CheckLoopbackRedirect(raw); (err == nil) != ok {
			t.Errorf("%q: %v, want accepted %v", raw, err, ok)
		}
	}
}
