package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Token lifetimes a client may ask for.
const (
	defaultLoginTokenTTL = 30 * 24 * time.Hour
	maxLoginTokenTTL     = store.MaxLoginTokenTTL
	// maxTokenTTL bounds a token an admin issues, which may also never
	// expire; far below what a time.Duration can hold.
	maxTokenTTL = 10 * 365 * 24 * time.Hour
)

// ttlOf turns a lifetime in seconds into a duration, refusing one below 0
// or above max before any arithmetic, so no value can overflow into an
// accepted one.
func ttlOf(field string, secs int64, max time.Duration, hint string) (time.Duration, *FieldProblem) {
	if secs < 0 || secs > int64(max/time.Second) {
		return 0, &FieldProblem{field, fmt.Sprintf("must be from 1 to %d seconds (%d days)%s", int64(max/time.Second), int64(max/(24*time.Hour)), hint)}
	}
	return time.Duration(secs) * time.Second, nil
}

// tokenCreateRequest is POST /tokens.
type tokenCreateRequest struct {
	Name string `json:"name" jsonschema:"required,description=names the token in logs and the audit log"`
	Role Role   `json:"role" jsonschema:"required"`
	// TTLSeconds expires the token after this many seconds; 0 or absent:
	// never.
	TTLSeconds int64 `json:"ttlSeconds,omitempty" jsonschema:"minimum=0,maximum=315360000,description=expire the token after this many seconds, at most 10 years (absent: never)"`
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
	checks := []*FieldProblem{checkTokenName("name", r.Name, "")}
	if _, err := ParseRole(string(r.Role)); err != nil {
		checks = append(checks, &FieldProblem{"role", err.Error()})
	}
	ttl, bad := ttlOf("ttlSeconds", r.TTLSeconds, maxTokenTTL, "; leave it out for a token that does not expire")
	if err := collect(append(checks, bad)...); err != nil {
		return err
	}
	t := &store.Token{Name: r.Name, Role: string(r.Role)}
	return s.issueToken(c, t, ttl, who(c).Name, true)
}

// exchangeToken is POST /session/tokens: the CLI's login. The password
// goes through the dashboard sign-in's checks and throttling
// (checkPassword); the token has the user's role and always expires.
func (s *server) exchangeToken(c *fiber.Ctx) error {
	var r tokenExchangeRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	ttl, bad := ttlOf("ttlSeconds", r.TTLSeconds, maxLoginTokenTTL, "; leave it out for 30 days")
	if bad != nil {
		return invalid(*bad)
	}
	if ttl == 0 {
		ttl = defaultLoginTokenTTL
	}
	if r.Name != "" {
		if bad := checkTokenName("name", r.Name, r.Username); bad != nil {
			return invalid(*bad)
		}
	}
	u, err := s.checkPassword(c, r.Username, r.Password)
	if err != nil {
		return err
	}
	if err := usable(u); err != nil {
		return err
	}
	name := r.Name
	if name == "" {
		name = loginTokenPrefix + u.Username
	}
	t := &store.Token{Name: name, Role: string(u.Role), UserID: u.ID}
	return s.issueToken(c, t, ttl, u.Username, false)
}

// issueToken stores t, a new token of ttl (0: never expires), and answers
// 201 with it; the request's principal becomes the token's issuer, so the
// audit log names them. With inTx, the audit event is stored in the
// token's transaction, with the token's ID as its target.
func (s *server) issueToken(c *fiber.Ctx, t *store.Token, ttl time.Duration, by string, inTx bool) error {
	token, hash := NewToken()
	t.Hash = hash
	t.ID = uuid.NewString()
	if ttl > 0 {
		// authorize judges tokens by the wall clock, not the sessions'.
		exp := time.Now().UTC().Truncate(time.Microsecond).Add(ttl)
		t.ExpiresAt = &exp
	}
	c.Locals(auditTargetKey, t.ID)
	create := func(ev *store.AuditEvent) error {
		if ev == nil {
			return s.store.CreateToken(c.UserContext(), t)
		}
		return s.store.CreateToken(c.UserContext(), t, ev)
	}
	var err error
	if inTx {
		err = s.changeAudited(c, http.StatusCreated, create)
	} else {
		err = create(nil)
	}
	if err != nil {
		return err
	}
	if who(c).Name == "" {
		c.Locals(principalKey, principal{TokenID: t.ID, Name: by, Role: Role(t.Role)})
	}
	s.log.Info("API token issued", "token_id", t.ID, "token_name", t.Name, "role", t.Role, "by", by, "request_id", requestID(c))
	return c.Status(http.StatusCreated).JSON(issuedToken{tokenView: viewToken(*t), Token: token})
}
