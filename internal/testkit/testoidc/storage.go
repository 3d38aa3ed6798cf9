package testoidc

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// errNotFound is what the provider answers for an unknown request, code
// or client.
var errNotFound = errors.New("not found")

// storage is the provider's op.Storage, in memory. Every method takes the
// Provider's lock: the op calls them from its HTTP handlers.
type storage struct {
	p   *Provider
	key *rsa.PrivateKey
	kid string
}

// authRequest is one authorization request, from /authorize until its code
// is exchanged (then it is deleted: a code works once).
type authRequest struct {
	id, clientID, redirectURI, state, nonce string
	scopes                                  []string
	challenge                               *oidc.CodeChallenge
	subject                                 string
	audience                                []string
	authTime                                time.Time
	done                                    bool
}

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return "" }
func (a *authRequest) GetAMR() []string                      { return []string{"pwd"} }
func (a *authRequest) GetAudience() []string                 { return a.audience }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.challenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return oidc.ResponseTypeCode }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return oidc.ResponseModeQuery }
func (a *authRequest) GetScopes() []string                   { return a.scopes }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

// CreateAuthRequest refuses a request without an S256 code challenge, so a
// client that forgets PKCE fails against this provider.
func (s *storage) CreateAuthRequest(_ context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if r.CodeChallenge == "" || r.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("this provider requires PKCE with S256")
	}
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	a := &authRequest{id: uuid.NewString(), clientID: r.ClientID, redirectURI: r.RedirectURI, state: r.State, nonce: r.Nonce,
		scopes: r.Scopes, challenge: &oidc.CodeChallenge{Challenge: r.CodeChallenge, Method: r.CodeChallengeMethod}}
	s.p.requests[a.id] = a
	s.p.authorizeCalls++
	return a, nil
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if a, ok := s.p.requests[id]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("auth request %s: %w", id, errNotFound)
}

func (s *storage) AuthRequestByCode(_ context.Context, code string) (op.AuthRequest, error) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if a, ok := s.p.requests[s.p.codes[code]]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("code: %w", errNotFound)
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	s.p.codes[code] = id
	return nil
}

// DeleteAuthRequest runs once a code is exchanged: the request and its
// codes go, so the same code exchanged again is refused (invalid_grant).
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	delete(s.p.requests, id)
	for code, rid := range s.p.codes {
		if rid == id {
			delete(s.p.codes, code)
		}
	}
	return nil
}

func (s *storage) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	return uuid.NewString(), time.Now().Add(5 * time.Minute), nil
}

func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("refresh tokens are not offered")
}

func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, op.ErrInvalidRefreshToken
}

func (s *storage) TerminateSession(context.Context, string, string) error { return nil }

func (s *storage) RevokeToken(context.Context, string, string, string) *oidc.Error { return nil }

func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return k.id }

type publicKey struct{ signingKey }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.key.PublicKey }

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	return signingKey{s.kid, s.key}, nil
}

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{signingKey{s.kid, s.key}}}, nil
}

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if c, ok := s.p.clients[id]; ok {
		return &client{Client: *c, p: s.p}, nil
	}
	return nil, fmt.Errorf("client %s: %w", id, errNotFound)
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if c, ok := s.p.clients[id]; ok && c.Secret == secret {
		return nil
	}
	return oidc.ErrInvalidClient().WithDescription("wrong client ID or secret")
}

// SetUserinfoFromScopes fills the ID token's claims (the clients assert
// userinfo claims in it): profile, email and the groups claim, read when
// the token is made, so a test changing a user's groups sees the next
// sign-in carry the new ones.
func (s *storage) SetUserinfoFromScopes(_ context.Context, info *oidc.UserInfo, userID, _ string, scopes []string) error {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	u, ok := s.p.users[userID]
	if !ok {
		return fmt.Errorf("user %s: %w", userID, errNotFound)
	}
	info.Subject = u.Subject
	if slices.Contains(scopes, oidc.ScopeProfile) {
		info.PreferredUsername, info.Name = u.Username, u.Name
	}
	if slices.Contains(scopes, oidc.ScopeEmail) {
		info.Email, info.EmailVerified = u.Email, oidc.Bool(u.Email != "")
	}
	if slices.Contains(scopes, "groups") && u.Groups != nil {
		info.AppendClaims(s.p.groupsClaim, slices.Clone(u.Groups))
	}
	return nil
}

func (s *storage) SetUserinfoFromToken(ctx context.Context, info *oidc.UserInfo, _, subject, _ string) error {
	return s.SetUserinfoFromScopes(ctx, info, subject, "", []string{oidc.ScopeProfile, oidc.ScopeEmail, "groups"})
}

func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("introspection is not offered")
}

func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("JWT profile is not offered")
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("JWT profile is not offered")
}

func (s *storage) Health(context.Context) error { return nil }

// client is a registered Client as the op sees it: a confidential web
// application using the code flow.
type client struct {
	Client
	p *Provider
}

func (c *client) GetID() string                       { return c.ID }
func (c *client) RedirectURIs() []string              { return c.Client.RedirectURIs }
func (c *client) PostLogoutRedirectURIs() []string    { return nil }
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *client) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType        { return []oidc.GrantType{oidc.GrantTypeCode} }
func (c *client) LoginURL(id string) string           { return c.p.URL + loginPath + "?id=" + id }
func (c *client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeBearer }
func (c *client) IDTokenLifetime() time.Duration {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return c.p.idTokenLifetime
}
func (c *client) DevMode() bool { return true } // loopback http redirect URIs
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) IsScopeAllowed(string) bool           { return true }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return true }
func (c *client) ClockSkew() time.Duration             { return 0 }
