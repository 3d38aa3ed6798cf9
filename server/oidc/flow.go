package oidc

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// FlowLifetime is how long a sign-in may take between the redirect to the
// provider and the callback.
const FlowLifetime = 10 * time.Minute

// Flow is what the callback must find again of the login that started it:
// kept in a sealed, short-lived cookie, so any replica can finish it.
type Flow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Redirect string `json:"r"` // the redirect URI the code was asked for
	Next     string `json:"x,omitempty"`
	// CLI is set when `kubeopera login --sso` started the sign-in.
	CLI     *CLIFlow  `json:"c,omitempty"`
	Expires time.Time `json:"e"`
}

// Sealer encrypts and authenticates (AES-GCM, the server's keyring).
type Sealer interface {
	Seal(plaintext, aad []byte) (ciphertext []byte, keyID string, err error)
	Open(ciphertext []byte, keyID string, aad []byte) ([]byte, error)
}

// flowAAD binds a sealed flow to its purpose: no other sealed value of
// the server opens as a flow.
var flowAAD = []byte("kubeopera oidc sign-in flow")

// ErrFlow is a callback without a usable flow cookie: none, tampered with,
// or expired.
var ErrFlow = errors.New("the sign-in took too long or was not started here; start it again from the sign-in page")

// SealFlow returns f as a cookie value.
func SealFlow(s Sealer, f Flow) (string, error) {
	return sealJSON(s, f, flowAAD, "sign-in flow")
}

// OpenFlow reads a cookie value SealFlow made, refusing it past its
// expiry as of now.
func OpenFlow(s Sealer, v string, now time.Time) (Flow, error) {
	var f Flow
	if !openJSON(s, v, flowAAD, &f) || !now.Before(f.Expires) {
		return Flow{}, ErrFlow
	}
	return f, nil
}

// sealJSON seals v, encoded as JSON, for aad: "<key ID>.<base64url>".
func sealJSON(s Sealer, v any, aad []byte, what string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", what, err)
	}
	ct, keyID, err := s.Seal(b, aad)
	if err != nil {
		return "", fmt.Errorf("seal %s: %w", what, err)
	}
	return keyID + "." + base64.RawURLEncoding.EncodeToString(ct), nil
}

// openJSON opens what sealJSON made for aad into out; false for anything
// else (not sealed here, tampered with, for another purpose).
func openJSON(s Sealer, sealed string, aad []byte, out any) bool {
	keyID, enc, ok := strings.Cut(sealed, ".")
	if !ok {
		return false
	}
	ct, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return false
	}
	b, err := s.Open(ct, keyID, aad)
	return err == nil && json.Unmarshal(b, out) == nil
}
