package api

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/access"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Role is what a caller may do; the roles and their order are
// access's, the one list.
type Role = access.Role

// The roles, as the route table names them.
const (
	Anonymous     = access.Anonymous
	Member        = access.Member
	Viewer        = access.Viewer
	Operator      = access.Operator
	Admin         = access.Admin
	PlatformAdmin = access.PlatformAdmin
)

// ParseRole accepts the name of a global role (a user's or a token's).
func ParseRole(s string) (Role, error) { return access.ParseGlobal(s) }

// tokenPrefix marks KubeOpera API tokens, so secret scanners can find them.
const tokenPrefix = "kop_"

// NewToken returns a new random API token and the hash to store for it.
func NewToken() (token, hash string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is what the store keeps instead of the token: hex SHA-256. The
// token has 256 bits of entropy, so a slow hash adds nothing.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// principal is who made a request.
type principal struct {
	TokenID string
	Name    string
	Role    Role
	// UserID is the signed-in user, by session or login token ("" for a
	// token an admin issued).
	UserID string
}

const principalKey = "principal"

// authorize is the one place where access is decided: it authenticates the
// bearer token, if any, and compares its role with what the route needs.
// On a route that confirms the token itself (confirms; see
// principalCache) a cached principal admits the request provisionally, and
// confirmToken finishes the decision.
func (s *server) authorize(need Role, sc scope, confirms bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if need == Anonymous {
			return c.Next()
		}
		c.Locals(needKey, need)
		// The dashboard signs in with a session cookie (session_auth.go);
		// a bearer token, when sent, takes precedence.
		if c.Get(fiber.HeaderAuthorization) == "" && c.Cookies(sessionCookie) != "" {
			return s.authorizeSession(c, need, sc)
		}
		token, ok := bearerToken(c.Get(fiber.HeaderAuthorization))
		if !ok {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="kubeopera"`)
			return problem(http.StatusUnauthorized, "missing bearer token: send 'Authorization: Bearer <token>' (run 'kubeopera login SERVER', or create a token with 'kubeopera tokens create')")
		}
		hash, now := HashToken(token), time.Now()
		if confirms {
			if p, ok := s.principals.get(hash, now); ok {
				c.Locals(unconfirmedKey, hash)
				return s.admit(c, p, need, sc)
			}
		}
		t, err := s.store.TokenByHash(c.UserContext(), hash)
		if errors.Is(err, store.ErrNotFound) {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="kubeopera", error="invalid_token"`)
			return problem(http.StatusUnauthorized, "the bearer token is not valid: it was never issued or has been revoked")
		}
		if err != nil {
			return err
		}
		if !t.Active(now) {
			return refuseToken(c, t.Name)
		}
		if confirms { // only such a route reads the cache
			s.principals.put(hash, t, now)
		}
		s.tokenUsage.record(t.ID, now)
		return s.admit(c, principal{TokenID: t.ID, Name: t.Name, Role: Role(t.Role), UserID: t.UserID}, need, sc)
	}
}

// admit lets p through when its role suffices for need: its global role
// on a global route, its role on the cluster's or credential's team on a
// route of one (placed.go).
func (s *server) admit(c *fiber.Ctx, p principal, need Role, sc scope) error {
	c.Locals(principalKey, p)
	if sc != globalScope {
		return s.admitPlaced(c, p, need, sc)
	}
	if need == Operator || need == Admin {
		// The request names its team (a cluster or credential to make):
		// the handler checks the role there (mayOnTeam).
		need = Member
	}
	if !p.Role.AtLeast(need) {
		return problem(http.StatusForbidden, "this needs the %s role; %s has %s", need, p.describe(), p.Role)
	}
	return c.Next()
}

// describe names p in a refusal: a token by name, a user signed in to the
// dashboard by username.
func (p principal) describe() string {
	if p.TokenID == "" {
		return fmt.Sprintf("user %q", p.Name)
	}
	return fmt.Sprintf("token %q", p.Name)
}

func refuseToken(c *fiber.Ctx, name string) error {
	c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="kubeopera", error="invalid_token"`)
	return problem(http.StatusUnauthorized, "the bearer token %q has been revoked or has expired: ask an admin for a new one", name)
}

const unconfirmedKey = "unconfirmed-token"

// tokenToConfirm returns the ID of the token that admitted c from the
// principal cache, which the route must confirm (confirmToken); "" when
// authorize looked it up already.
func tokenToConfirm(c *fiber.Ctx) string {
	if _, ok := c.Locals(unconfirmedKey).(string); !ok {
		return ""
	}
	return who(c).TokenID
}

// confirmToken finishes authorize for a request admitted from the
// principal cache: active is whether the route's statement found the token
// neither revoked nor expired. A refused token leaves the cache.
func (s *server) confirmToken(c *fiber.Ctx, active bool) error {
	hash, ok := c.Locals(unconfirmedKey).(string)
	if !ok {
		return nil
	}
	c.Locals(unconfirmedKey, nil)
	p := who(c)
	if !active {
		s.principals.drop(hash)
		c.Locals(principalKey, principal{})
		return refuseToken(c, p.Name)
	}
	s.tokenUsage.record(p.TokenID, time.Now())
	return nil
}

// failConfirmed confirms by itself the provisional token of a request
// that fails before its statement could, so a revoked token is refused
// rather than told what was wrong with its request. It returns err unless
// the token is refused (or there was none to confirm).
func (s *server) failConfirmed(c *fiber.Ctx, err error) error {
	id := tokenToConfirm(c)
	if id == "" {
		return err
	}
	active, cerr := s.store.TokenActive(c.UserContext(), id)
	if cerr != nil {
		return err
	}
	if refused := s.confirmToken(c, active); refused != nil {
		return refused
	}
	return err
}

func who(c *fiber.Ctx) principal {
	p, _ := c.Locals(principalKey).(principal)
	return p
}

// bearerToken takes the token from an Authorization header. The scheme is
// case-insensitive (RFC 9110 section 11.1): "bearer x" is as good as
// "Bearer x".
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}
