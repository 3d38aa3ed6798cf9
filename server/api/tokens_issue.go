package api

import (
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Token lifetimes a client may ask for.
const (
	defaultLoginTokenTTL = 30 * 24 * time.Hour
	maxLoginTokenTTL     = 90 * 24 * time.Hour
)

// tokenCreateRequest is POST /tokens.
type tokenCreateRequest struct {
	Name string `json:"name" jsonschema:"required,description=names the token in logs and the audit log"`
	Role Role   `json:"role" jsonschema:"required"`
	// TTLSeconds expires the token after this many seconds; 0 or absent:
	// never.
	TTLSeconds int64 `json:"ttlSeconds,omitempty" jsonschema:"minimum=0,description=expire the token after this many seconds (absent: never)"`
}

// tokenExchangeRequest is POST /session/tokens: a user's password for an
// API token of the user's role.
type tokenExchangeRequest struct {
	Username string `json:"username" jsonschema:"required"`
	Password string `json:"password" jsonschema:"required"`
	// Name defaults to "login:<username>".
	Name       string `json:"name,omitempty" jsonschema:"description=names the token (default login:<username>)"`
	TTLSeconds int64  `json:"ttlSeconds,omitempty" jsonschema:"minimum=0,maximum=7776000,description=lifetime in seconds (default 30 days, at most 90)"`
}

// issuedToken is a token just created: the only answer that carries it.
type issuedToken struct {
	tokenView
	// Token is shown this once; only its hash is kept.
	Token string `json:"token"`
}

// createToken is POST /tokens: an admin issues a token of any role.
func (s *server) createToken(c *fiber.Ctx) error {
	var r tokenCreateRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	var checks []*FieldProblem
	if r.Name == "" {
		checks = append(checks, &FieldProblem{"name", "is required: it names the token in logs and the audit log"})
	}
	if _, err := ParseRole(string(r.Role)); err != nil {
		checks = append(checks, &FieldProblem{"role", err.Error()})
	}
	if r.TTLSeconds < 0 {
		checks = append(checks, &FieldProblem{"ttlSeconds", "must be positive; leave it out for a token that does not expire"})
	}
	if err := collect(checks...); err != nil {
		return err
	}
	return s.issueToken(c, r.Name, r.Role, time.Duration(r.TTLSeconds)*time.Second, nil)
}

// exchangeToken is POST /session/tokens: the CLI's login. The password
// goes through the dashboard sign-in's checks and throttling
// (checkPassword); the token has the user's role and always expires.
func (s *server) exchangeToken(c *fiber.Ctx) error {
	var r tokenExchangeRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	ttl := time.Duration(r.TTLSeconds) * time.Second
	if r.TTLSeconds < 0 || ttl > maxLoginTokenTTL {
		return invalid(FieldProblem{"ttlSeconds", "must be from 1 second to 90 days (7776000); leave it out for 30 days"})
	}
	if ttl == 0 {
		ttl = defaultLoginTokenTTL
	}
	u, err := s.checkPassword(c, r.Username, r.Password)
	if err != nil {
		return err
	}
	name := r.Name
	if name == "" {
		name = "login:" + u.Username
	}
	return s.issueToken(c, name, Role(u.Role), ttl, u)
}

// issueToken stores a new token and answers 201 with it; the request's
// principal, or for a login token the user who signed in (signedIn), becomes
// the token's issuer, so the audit log names them.
func (s *server) issueToken(c *fiber.Ctx, name string, role Role, ttl time.Duration, signedIn *store.User) error {
	token, hash := NewToken()
	t := &store.Token{Name: name, Role: string(role), Hash: hash}
	by := who(c).Name
	if signedIn != nil {
		t.UserID, by = signedIn.ID, signedIn.Username
	}
	if ttl > 0 {
		// authorize judges tokens by the wall clock, not the sessions'.
		exp := time.Now().UTC().Truncate(time.Microsecond).Add(ttl)
		t.ExpiresAt = &exp
	}
	if err := s.store.CreateToken(c.UserContext(), t); err != nil {
		return err
	}
	if who(c).Name == "" {
		c.Locals(principalKey, principal{TokenID: t.ID, Name: by, Role: role})
	}
	s.log.Info("API token issued", "token_id", t.ID, "token_name", t.Name, "role", role, "by", by, "request_id", requestID(c))
	return c.Status(http.StatusCreated).JSON(issuedToken{tokenView: viewToken(*t), Token: token})
}
