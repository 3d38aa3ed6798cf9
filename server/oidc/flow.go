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
	b, err := json.Marshal(f)
	if err != nil {
		return "", fmt.Errorf("encode sign-in flow: %w", err)
	}
	ct, keyID, err := s.Seal(b, flowAAD)
	if err != nil {
		return "", fmt.Errorf("seal sign-in flow: %w", err)
	}
	return keyID + "." + base64.RawURLEncoding.EncodeToString(ct), nil
}

// OpenFlow reads a cookie value SealFlow made, refusing it past its
// expiry as of now.
func OpenFlow(s Sealer, v string, now time.Time) (Flow, error) {
	keyID, enc, ok := strings.Cut(v, ".")
	if !ok {
		return Flow{}, ErrFlow
	}
	ct, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return Flow{}, ErrFlow
	}
	b, err := s.Open(ct, keyID, flowAAD)
	if err != nil {
		return Flow{}, ErrFlow
	}
	var f Flow
	if err := json.Unmarshal(b, &f); err != nil || !now.Before(f.Expires) {
		return Flow{}, ErrFlow
	}
	return f, nil
}
