// Package testoidc is a real OpenID Provider for tests: zitadel/oidc's
// pkg/op with in-memory storage, served on loopback. Tests register
// clients and users (with groups), sign in through its login form or have
// it sign the next request in as a chosen user, and can make it misbehave
// the ways a test needs (another audience, tokens already expired).
package testoidc

import (
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/pkg/op"
)

const loginPath = "/login"

// Client is an OAuth client registered with the provider.
type Client struct {
	ID           string   `json:"id"`
	Secret       string   `json:"secret"`
	RedirectURIs []string `json:"redirectURIs"`
}

// User is someone the provider can sign in.
type User struct {
	// Subject is the stable `sub` claim.
	Subject  string `json:"subject"`
	Username string `json:"username"`
	Name     string `json:"name,omitempty"`
	Email    string `json:"email,omitempty"`
	// Groups go into the groups claim when the client asks for the
	// "groups" scope; nil leaves the claim out.
	Groups []string `json:"groups,omitempty"`
}

// Provider is the running OpenID Provider.
type Provider struct {
	// URL is the issuer, http://127.0.0.1:port.
	URL string

	mu              sync.Mutex
	clients         map[string]*Client
	users           map[string]User // by subject
	requests        map[string]*authRequest
	codes           map[string]string // code -> request ID
	autoLogin       string            // subject; "" shows the login form
	audience        []string
	idTokenLifetime time.Duration
	groupsClaim     string
	authorizeCalls  int
	srv             *http.Server
}

// New starts a provider on loopback, stopped when the test ends.
func New(t testing.TB) *Provider {
	t.Helper()
	p, err := Start("127.0.0.1:0")
	if err != nil {
		t.Fatalf("testoidc: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// Start serves a provider on addr, which must be a loopback address
// ("127.0.0.1:0" picks a free port); Close stops it. A program (the
// browser suite's provider, hack/testoidc) starts it this way.
func Start(addr string) (*Provider, error) {
	if err := checkLoopback(addr); err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	p := &Provider{clients: map[string]*Client{}, users: map[string]User{}, requests: map[string]*authRequest{},
		codes: map[string]string{}, idTokenLifetime: 5 * time.Minute, groupsClaim: "groups"}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	p.URL = "http://" + l.Addr().String()
	cfg := &op.Config{CodeMethodS256: true, SupportedScopes: []string{"openid", "profile", "email", "groups"}}
	if _, err := rand.Read(cfg.CryptoKey[:]); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("crypto key: %w", err)
	}
	st := &storage{p: p, key: key, kid: "testoidc-1"}
	provider, err := op.NewProvider(cfg, st, op.StaticIssuer(p.URL), op.WithAllowInsecure())
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("provider: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(loginPath, p.login)
	mux.Handle("/oauth/token", p.reissue(provider, st))
	mux.Handle("/", provider)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(l) }()
	return p, nil
}

// Close stops the provider and its open connections.
func (p *Provider) Close() {
	_ = p.srv.Close()
}

// checkLoopback refuses to serve anywhere but on loopback: the provider
// signs anyone in who names a user.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("address %q: the test provider serves on a loopback IP only, e.g. 127.0.0.1:0", addr)
	}
	return nil
}

// AddClient registers c.
func (p *Provider) AddClient(c Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients[c.ID] = &c
}

// SetUser adds u, or replaces the user with u's subject (a test changing
// someone's groups).
func (p *Provider) SetUser(u User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u.Groups = slices.Clone(u.Groups)
	p.users[u.Subject] = u
}

// SignInAs makes every login complete at once as the user with subject,
// without the form; "" brings the form back.
func (p *Provider) SignInAs(subject string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.autoLogin = subject
}

// SetAudience makes ID tokens name aud (and aud[0] as azp) instead of the
// client that asked, signed with the provider's key: a token minted for
// another application. nil brings the client back.
func (p *Provider) SetAudience(aud []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.audience = slices.Clone(aud)
}

// SetIDTokenLifetime changes how long ID tokens are valid; a negative
// lifetime makes tokens that expired before they were issued.
func (p *Provider) SetIDTokenLifetime(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idTokenLifetime = d
}

// SetGroupsClaim renames the claim groups go in (default "groups").
func (p *Provider) SetGroupsClaim(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.groupsClaim = name
}

// AuthorizeCalls counts the authorization requests the provider accepted.
func (p *Provider) AuthorizeCalls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.authorizeCalls
}

var loginForm = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body><main><h1>Test identity provider</h1>
<form method="post" action="/login">
<input type="hidden" name="id" value="{{.ID}}">
<label for="username">Username</label> <input id="username" name="username" autocomplete="username">
<button type="submit">Sign in</button>
{{if .Error}}<p role="alert">{{.Error}}</p>{{end}}
</form></main></body></html>`))

// login is the provider's sign-in page: the form (GET), its answer (POST,
// by username; there are no passwords), or an immediate sign-in as the
// SignInAs user.
func (p *Provider) login(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id := r.Form.Get("id")
	p.mu.Lock()
	subject := p.autoLogin
	if r.Method == http.MethodPost {
		subject = ""
		for _, u := range p.users {
			if u.Username == r.Form.Get("username") {
				subject = u.Subject
			}
		}
	}
	a, ok := p.requests[id]
	if ok && subject != "" {
		a.subject, a.authTime, a.done = subject, time.Now(), true
		a.audience = []string{a.clientID}
	}
	p.mu.Unlock()
	switch {
	case !ok:
		http.Error(w, "unknown authorization request", http.StatusBadRequest)
	case subject == "":
		msg := ""
		if r.Method == http.MethodPost {
			msg = "no such user"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = loginForm.Execute(w, struct{ ID, Error string }{id, msg})
	default:
		http.Redirect(w, r, p.URL+"/authorize/callback?id="+id, http.StatusFound) //nolint:gosec // G710: the test provider redirects to its own URL; id is an opaque request ID
	}
}
