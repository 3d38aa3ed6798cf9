package oidc

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"
)

// Paths of `kubeopera login --sso`: the CLI opens CLILoginPath in the
// browser; the sign-in ends with a redirect to the CLI's loopback
// listener carrying a one-time code, which the CLI exchanges at
// CLITokenPath for a login token.
const (
	CLILoginPath = "/api/v1/auth/oidc/cli/login"
	CLITokenPath = "/api/v1/auth/oidc/cli/token"
)

// CLICodeLifetime is how long the CLI has to exchange its code.
const CLICodeLifetime = time.Minute

// CLIFlow is what a CLI's sign-in adds to a Flow: where the CLI listens,
// the challenge its code will be bound to, and the CLI's state.
type CLIFlow struct {
	Redirect  string `json:"r"`
	Challenge string `json:"c"`
	State     string `json:"s"`
}

// CheckLoopbackRedirect accepts only http://127.0.0.1:PORT/... or
// http://[::1]:PORT/... (RFC 8252, 7.3): a code sent anywhere else could
// be read by someone other than the CLI that asked. "localhost" is
// refused too, since a name can resolve elsewhere (RFC 8252, 8.3).
func CheckLoopbackRedirect(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("is not a URL: %w", err)
	}
	ip := net.ParseIP(u.Hostname())
	if u.Scheme != "http" || ip == nil || !ip.IsLoopback() || u.Port() == "" || u.User != nil || u.Fragment != "" {
		return errors.New("must be a loopback address with a port: http://127.0.0.1:PORT/PATH or http://[::1]:PORT/PATH")
	}
	return nil
}

// CheckChallenge accepts an S256 code challenge: 43 characters of
// base64url (RFC 7636, 4.2).
func CheckChallenge(c string) error {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != sha256.Size {
		return errors.New("must be the unpadded base64url SHA-256 of the code verifier (43 characters)")
	}
	return nil
}

// Challenge is the S256 challenge of verifier.
func Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// CLICode is what a one-time code stands for: the user signed in and the
// challenge the exchange must answer.
type CLICode struct {
	UserID    string    `json:"u"`
	Challenge string    `json:"c"`
	Expires   time.Time `json:"e"`
	// Nonce makes two codes for the same user and challenge differ.
	Nonce string `json:"n"`
}

var cliCodeAAD = []byte("kubeopera cli sign-in code")

// ErrCLICode is a code that is not one this server made, or expired, or
// whose verifier does not match.
var ErrCLICode = errors.New("the sign-in code is not valid, has expired or does not match this login: run 'kubeopera login --sso' again")

// SealCLICode returns c as the code sent to the CLI.
func SealCLICode(s Sealer, c CLICode) (string, error) {
	return sealJSON(s, c, cliCodeAAD, "sign-in code")
}

// OpenCLICode reads code, refusing it past its expiry as of now or when
// verifier is not the one its challenge was made from.
func OpenCLICode(s Sealer, code, verifier string, now time.Time) (CLICode, error) {
	var c CLICode
	if !openJSON(s, code, cliCodeAAD, &c) || !now.Before(c.Expires) ||
		subtle.ConstantTimeCompare([]byte(Challenge(verifier)), []byte(c.Challenge)) != 1 {
		return CLICode{}, ErrCLICode
	}
	return c, nil
}
