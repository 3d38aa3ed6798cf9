package api

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// ProxyAuth authenticates the cluster proxy's callers with the REST API's
// own bearer tokens and sessions (k8sproxy.Authenticator), so a token or
// session refused here is refused there.
type ProxyAuth struct {
	Store *store.Store
	// Sessions is the same sign-in policy the API runs with.
	Sessions SessionOptions
	// TokenUsage records token use as authorize does; nil records none.
	TokenUsage *TokenUsage
}

// Credential keys of k8sproxy.Identity.
const (
	tokenCredential   = "token:"
	sessionCredential = "session:"
)

// Authenticate is k8sproxy.Authenticator.Authenticate: a bearer token
// takes precedence over the session cookie, as in authorize.
func (a ProxyAuth) Authenticate(ctx context.Context, r *http.Request, cluster string) (k8sproxy.Identity, error) {
	id, err := a.authenticate(ctx, r)
	if err != nil {
		return id, err
	}
	id.Cluster = cluster
	role, err := a.roleOn(ctx, id)
	if err != nil {
		return k8sproxy.Identity{}, err
	}
	if role == Anonymous {
		return k8sproxy.Identity{}, k8sproxy.Refuse(http.StatusNotFound, "cluster \""+cluster+"\" does not exist")
	}
	id.Role = string(role)
	return id, nil
}

// roleOn is what id may do on id.Cluster: its global role and its team
// membership there, as the REST API's cluster routes decide (admit).
func (a ProxyAuth) roleOn(ctx context.Context, id k8sproxy.Identity) (Role, error) {
	global := Role(id.Global)
	if global == PlatformAdmin {
		return global, nil
	}
	p, err := a.Store.ClusterPlacement(ctx, id.Cluster, id.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return Anonymous, nil
	}
	if err != nil {
		return Anonymous, err
	}
	return access.OnTeam(global, p.Member), nil
}

// authenticate checks the caller's credential: a bearer token takes
// precedence over the session cookie, as in authorize.
func (a ProxyAuth) authenticate(ctx context.Context, r *http.Request) (k8sproxy.Identity, error) {
	header := r.Header.Get("Authorization")
	if cookie, err := r.Cookie(sessionCookie); header == "" && err == nil && cookie.Value != "" {
		return a.session(ctx, r, cookie.Value)
	}
	token, ok := bearerToken(header)
	if !ok {
		return k8sproxy.Identity{}, k8sproxy.Refuse(http.StatusUnauthorized,
			"missing bearer token: use the kubeconfig 'kubeopera clusters kubeconfig NAME' prints")
	}
	t, err := a.Store.TokenByHash(ctx, HashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return k8sproxy.Identity{}, k8sproxy.Refuse(http.StatusUnauthorized, "the bearer token is not valid: it was never issued or has been revoked")
	}
	if err != nil {
		return k8sproxy.Identity{}, err
	}
	now := time.Now()
	if !t.Active(now) {
		return k8sproxy.Identity{}, k8sproxy.Refuse(http.StatusUnauthorized,
			"the bearer token \""+t.Name+"\" has been revoked or has expired: get a new kubeconfig with 'kubeopera clusters kubeconfig NAME'")
	}
	if a.TokenUsage != nil {
		a.TokenUsage.record(t.ID, now)
	}
	user, err := a.proxyUserOfToken(ctx, t)
	if err != nil {
		return k8sproxy.Identity{}, err
	}
	id := k8sproxy.Identity{User: user, UserID: t.UserID, Global: t.Role, TokenID: t.ID, Credential: tokenCredential + t.ID}
	if t.ExpiresAt != nil {
		id.Expires = *t.ExpiresAt
	}
	return id, nil
}

// proxyUserOfToken is the user name the proxy acts as for a token: its
// user's username for a token a user holds (a login token, a per-user
// kubeconfig's), else "token:<name>", which no username can be (a token
// name is chosen by whoever holds it and is no identity).
func (a ProxyAuth) proxyUserOfToken(ctx context.Context, t *store.Token) (string, error) {
	if t.UserID == "" {
		return "token:" + t.Name, nil
	}
	u, err := a.Store.GetUser(ctx, t.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return "", k8sproxy.Refuse(http.StatusUnauthorized, "the token's user no longer exists")
	}
	if err != nil {
		return "", err
	}
	return u.Username, nil
}

func (a ProxyAuth) session(ctx context.Context, r *http.Request, cookie string) (k8sproxy.Identity, error) {
	o := a.Sessions.withDefaults()
	sess, u, err := a.Store.UseSession(ctx, HashToken(cookie), o.now(), o.Idle)
	switch {
	case errors.Is(err, store.ErrSessionExpired):
		return k8sproxy.Identity{}, k8sproxy.Refuse(http.StatusUnauthorized, "your session has expired; sign in again")
	case errors.Is(err, store.ErrNotFound):
		return k8sproxy.Identity{}, k8sproxy.Refuse(http.StatusUnauthorized, "you are signed out; sign in again")
	case err != nil:
		return k8sproxy.Identity{}, err
	}
	if mutating(r.Method) && subtle.ConstantTimeCompare([]byte(r.Header.Get(csrfHeader)), []byte(sess.CSRFToken)) != 1 {
		return k8sproxy.Identity{}, k8sproxy.Refuse(http.StatusForbidden,
			"missing or wrong "+csrfHeader+" header: a request that changes something must send the token GET /api/v1/session returned")
	}
	return k8sproxy.Identity{User: u.Username, UserID: u.ID, Global: string(u.Role), Credential: sessionCredential + sess.IDHash, Expires: sess.ExpiresAt}, nil
}

// Valid is k8sproxy.Authenticator.Valid.
func (a ProxyAuth) Valid(ctx context.Context, id k8sproxy.Identity) (bool, error) {
	ok, err := a.credentialValid(ctx, &id)
	if !ok || err != nil || id.Cluster == "" {
		return ok, err
	}
	role, err := a.roleOn(ctx, id)
	return string(role) == id.Role, err
}

// credentialValid reports whether id's credential still authenticates,
// updating id.Global from a session's user.
func (a ProxyAuth) credentialValid(ctx context.Context, id *k8sproxy.Identity) (bool, error) {
	if tokenID, ok := strings.CutPrefix(id.Credential, tokenCredential); ok {
		return a.Store.TokenActive(ctx, tokenID)
	}
	hash, ok := strings.CutPrefix(id.Credential, sessionCredential)
	if !ok {
		return false, nil
	}
	o := a.Sessions.withDefaults()
	_, u, err := a.Store.UseSession(ctx, hash, o.now(), o.Idle)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrSessionExpired) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	id.Global = string(u.Role)
	return true, nil
}
