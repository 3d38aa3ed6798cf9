package oidc

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Errors a callback can end in; each says what the user can do.
var (
	// ErrState is a callback whose state is not the one this browser's
	// sign-in sent: a forged or crossed callback.
	ErrState = errors.New("the sign-in answer does not belong to this browser's sign-in (state mismatch); start again from the sign-in page")
	// ErrToken is an ID token that failed verification.
	ErrToken = errors.New("the identity provider's ID token was refused")
	// ErrDenied is the provider refusing the sign-in.
	ErrDenied = errors.New("the identity provider did not sign you in")
	// ErrExchange is a code the provider would not exchange (used
	// already, expired, or the client's registration is wrong).
	ErrExchange = errors.New("the identity provider refused the sign-in code")
)

// Identity is who the provider says signed in.
type Identity struct {
	Issuer, Subject          string
	PreferredUsername, Email string
	Name                     string
	Groups                   []string
}

// Provider runs the flow against one OpenID Provider. Discovery happens at
// first use and is retried until it works, so a provider that is down when
// the server starts delays only sign-ins.
type Provider struct {
	cfg Config

	mu       sync.Mutex
	provider *gooidc.Provider
}

// New returns a Provider for cfg (defaults filled in).
func New(cfg Config) *Provider { return &Provider{cfg: cfg.WithDefaults()} }

// Config is the configuration in use.
func (p *Provider) Config() Config { return p.cfg }

func (p *Provider) discover(ctx context.Context) (*gooidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.provider != nil {
		return p.provider, nil
	}
	// go-oidc keeps ctx for fetching keys later: it must outlive the request.
	pr, err := gooidc.NewProvider(context.WithoutCancel(ctx), p.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("reach the identity provider %s: %w", p.cfg.Issuer, err)
	}
	p.provider = pr
	return pr, nil
}

func (p *Provider) oauth(pr *gooidc.Provider, redirect string) *oauth2.Config {
	return &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: pr.Endpoint(),
		RedirectURL: redirect, Scopes: p.cfg.Scopes}
}

// Begin starts a sign-in: the provider's authorization URL to send the
// browser to, and the Flow the callback needs. redirect is the callback
// URL (Config.RedirectURL when set).
func (p *Provider) Begin(ctx context.Context, redirect string) (string, Flow, error) {
	pr, err := p.discover(ctx)
	if err != nil {
		return "", Flow{}, err
	}
	if p.cfg.RedirectURL != "" {
		redirect = p.cfg.RedirectURL
	}
	f := Flow{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), Redirect: redirect,
		Expires: p.cfg.Now().Add(FlowLifetime)}
	u := p.oauth(pr, redirect).AuthCodeURL(f.State, gooidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	return u, f, nil
}

// Finish completes the sign-in f started with the callback's query:
// it checks state, exchanges the code with the PKCE verifier, verifies the
// ID token (signature, issuer, audience, expiry) and its nonce.
func (p *Provider) Finish(ctx context.Context, f Flow, q url.Values) (*Identity, error) {
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("%w: %s %s", ErrDenied, e, q.Get("error_description"))
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.State)) != 1 || f.State == "" {
		return nil, ErrState
	}
	pr, err := p.discover(ctx)
	if err != nil {
		return nil, err
	}
	tok, err := p.oauth(pr, f.Redirect).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrExchange, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, fmt.Errorf("%w: the token response carries no id_token (is the openid scope allowed?)", ErrToken)
	}
	idt, err := pr.Verifier(&gooidc.Config{ClientID: p.cfg.ClientID, Now: p.cfg.Now}).Verify(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrToken, err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return nil, fmt.Errorf("%w: its nonce is not this sign-in's", ErrToken)
	}
	return p.identity(idt)
}

func (p *Provider) identity(idt *gooidc.IDToken) (*Identity, error) {
	var std struct {
		PreferredUsername string `json:"preferred_username"`
		Email             string `json:"email"`
		Name              string `json:"name"`
	}
	var all map[string]any
	if err := idt.Claims(&std); err != nil {
		return nil, fmt.Errorf("%w: read its claims: %w", ErrToken, err)
	}
	if err := idt.Claims(&all); err != nil {
		return nil, fmt.Errorf("%w: read its claims: %w", ErrToken, err)
	}
	groups, err := stringsClaim(all[p.cfg.GroupsClaim])
	if err != nil {
		return nil, fmt.Errorf("%w: claim %q: %w", ErrToken, p.cfg.GroupsClaim, err)
	}
	return &Identity{Issuer: idt.Issuer, Subject: idt.Subject, PreferredUsername: std.PreferredUsername,
		Email: strings.ToLower(std.Email), Name: std.Name, Groups: groups}, nil
}

// stringsClaim reads a claim that is a list of strings, or one string
// (some providers send a single group so).
func stringsClaim(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("holds %T, want strings", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("is %T, want a list of strings", v)
}

func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
