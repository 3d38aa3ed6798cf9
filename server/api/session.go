package api

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// The dashboard's sign-in: a random session ID in an HttpOnly,
// SameSite=Strict cookie (Secure over TLS), its hash and a CSRF token kept
// in the database, so any replica serves it and a restart signs no one out.
// Scripts keep using bearer tokens (auth.go).
const (
	sessionCookie = "kubeopera_session"
	// csrfHeader must carry the session's CSRF token on every mutating
	// request made with the session cookie.
	csrfHeader = "X-CSRF-Token"
)

// SessionOptions are the dashboard's session and sign-in throttling
// policy; zero values take the defaults.
type SessionOptions struct {
	// Idle ends a session unused this long (default 1h).
	Idle time.Duration
	// Absolute ends every session this long after sign-in (default 12h).
	Absolute time.Duration
	// Window is the period failed sign-ins are counted over (default 15m).
	Window time.Duration
	// PerAccount and PerAddress are the failures allowed in a window for
	// one username and one client address (defaults 5 and 20).
	PerAccount, PerAddress int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (o SessionOptions) withDefaults() SessionOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.Idle, time.Hour)
	def(&o.Absolute, 12*time.Hour)
	def(&o.Window, 15*time.Minute)
	if o.PerAccount == 0 {
		o.PerAccount = 5
	}
	if o.PerAddress == 0 {
		o.PerAddress = 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

func (o SessionOptions) now() time.Time { return o.Now().UTC().Truncate(time.Microsecond) }

// signInRequest is POST /api/v1/session. Password is never logged.
type signInRequest struct {
	Username string `json:"username" jsonschema:"required"`
	Password string `json:"password" jsonschema:"required"`
}

// sessionUser is who is signed in.
type sessionUser struct {
	ID       string `json:"id,omitempty"`
	Username string `json:"username"`
	Email    string `json:"email,omitempty"`
	Role     Role   `json:"role"`
}

// sessionResponse is the signed-in user and the token mutating requests
// must send in X-CSRF-Token; for a bearer token, CSRFToken is empty.
type sessionResponse struct {
	User      sessionUser `json:"user"`
	CSRFToken string      `json:"csrfToken"`
	ExpiresAt *time.Time  `json:"expiresAt,omitempty"`
}

const sessionLocal = "session"

// dummyPasswordHash is compared against when the username is unknown, so
// a sign-in takes as long whether or not the account exists.
var dummyPasswordHash, _ = bcrypt.GenerateFromPassword([]byte("not-a-password-of-anyone"), passwordHashCost)

// signIn checks a username and password and starts a session. The attempt
// is counted before the password is compared (checkPassword).
func (s *server) signIn(c *fiber.Ctx) error {
	var r signInRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	u, err := s.checkPassword(c, r.Username, r.Password)
	if err != nil {
		return err
	}
	if err := usable(u); err != nil {
		return err
	}
	return s.startSession(c, u, s.sessions.now())
}

// checkPassword returns the user named username if password is theirs,
// after reserving the attempt; a wrong password or unknown user answers
// 401, a used-up budget 429. Any route that signs someone in with a
// password goes through it.
func (s *server) checkPassword(c *fiber.Ctx, username, password string) (*store.User, error) {
	if s.passwordsOff {
		return nil, errPasswordsOff()
	}
	if username == "" || password == "" {
		return nil, invalid(FieldProblem{"username", "username and password are both required"})
	}
	if f := checkUsername("username", username); f != nil {
		return nil, invalid(*f) // no account can have it: not worth a counter
	}
	attempt, err := s.reserveSignIn(c, username)
	if err != nil {
		return nil, err
	}
	u, err := s.store.UserByUsername(c.UserContext(), username)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	hash := dummyPasswordHash
	if u != nil {
		hash = []byte(u.PasswordHash)
		// Past the limit, an attempt on a real account is worth a row in
		// the audit log, with the account as its target; the actor is
		// nobody known until the password is right. An attempt on a name
		// no account has is only counted: anyone can send millions, and a
		// name they chose is no actor.
		c.Locals(auditActorKey, anonymousActor)
		c.Locals(auditTargetKey, u.ID)
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || u == nil {
		s.log.Info("sign-in failed", "username", username, "request_id", requestID(c))
		return nil, problem(http.StatusUnauthorized, "wrong username or password")
	}
	c.Locals(auditActorKey, u.Username)
	if err := s.signedIn(c, attempt); err != nil {
		return nil, err
	}
	c.Locals(auditTargetKey, u.ID)
	return u, nil
}

// usable refuses a user who proved their password but may not sign in:
// disabled, or told to choose a new password first.
func usable(u *store.User) error {
	switch {
	case u.DisabledAt != nil:
		return problem(http.StatusForbidden, "user %q is disabled: ask a platform admin to enable the account", u.Username)
	case u.MustChangePassword:
		p := problem(http.StatusForbidden, "user %q must choose a new password first: POST it to /api/v1/session/password, "+
			"or sign in to the dashboard or with 'kubeopera login', which ask for it", u.Username)
		p.Code = CodePasswordChangeRequired
		return p
	}
	return nil
}

func (s *server) startSession(c *fiber.Ctx, u *store.User, now time.Time) error {
	sess, err := s.newSession(c, u, now)
	if err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(sessionResponse{User: userOf(u), CSRFToken: sess.CSRFToken, ExpiresAt: &sess.ExpiresAt})
}

// newSession stores a session for u and sets its cookie: every way of
// signing in to the dashboard ends here.
func (s *server) newSession(c *fiber.Ctx, u *store.User, now time.Time) (*store.Session, error) {
	id, csrf := randomToken(), randomToken()
	sess := &store.Session{IDHash: HashToken(id), UserID: u.ID, CSRFToken: csrf, CreatedAt: now, LastSeenAt: now,
		ExpiresAt: now.Add(s.sessions.Absolute)}
	if err := s.store.CreateSession(c.UserContext(), sess); err != nil {
		return nil, err
	}
	c.Cookie(&fiber.Cookie{Name: sessionCookie, Value: id, Path: "/", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode,
		Secure: c.Protocol() == "https", Expires: sess.ExpiresAt})
	s.log.Info("signed in", "user_id", u.ID, "username", u.Username, "request_id", requestID(c))
	return sess, nil
}

// currentSession tells the dashboard who is signed in, and a script who
// its token is.
func (s *server) currentSession(c *fiber.Ctx) error {
	sess, u := sessionOf(c)
	if sess == nil {
		p := who(c)
		return c.JSON(sessionResponse{User: sessionUser{Username: p.Name, Role: p.Role}})
	}
	return c.JSON(sessionResponse{User: userOf(u), CSRFToken: sess.CSRFToken, ExpiresAt: &sess.ExpiresAt})
}

// signOut revokes the session and clears its cookie; a request made with
// a bearer token revokes that token instead, whatever its role (the CLI's
// logout).
func (s *server) signOut(c *fiber.Ctx) error {
	sess, _ := sessionOf(c)
	if sess == nil {
		return s.revokeOwnToken(c)
	}
	if err := s.store.DeleteSession(c.UserContext(), sess.IDHash); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	clearSessionCookie(c)
	return c.SendStatus(http.StatusNoContent)
}

// revokeOwnToken revokes the bearer token that made the request.
func (s *server) revokeOwnToken(c *fiber.Ctx) error {
	p := who(c)
	if p.TokenID == "" {
		return problem(http.StatusBadRequest, "there is nothing to sign out of: send the session cookie or the bearer token to revoke")
	}
	c.Locals(auditTargetKey, p.TokenID)
	return s.changeAudited(c, http.StatusNoContent, func(ev *store.AuditEvent) error {
		if _, err := s.store.RevokeToken(c.UserContext(), p.TokenID, "", ev); err != nil {
			return err
		}
		s.log.Info("API token revoked by its holder", "token_id", p.TokenID, "token_name", p.Name, "request_id", requestID(c))
		return c.SendStatus(http.StatusNoContent)
	})
}

func clearSessionCookie(c *fiber.Ctx) {
	c.Cookie(&fiber.Cookie{Name: sessionCookie, Value: "", Path: "/", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode,
		Secure: c.Protocol() == "https", Expires: time.Unix(0, 0), MaxAge: -1})
}

type sessionAndUser struct {
	sess *store.Session
	user *store.User
}

func sessionOf(c *fiber.Ctx) (*store.Session, *store.User) {
	v, _ := c.Locals(sessionLocal).(sessionAndUser)
	return v.sess, v.user
}

func userOf(u *store.User) sessionUser {
	return sessionUser{ID: u.ID, Username: u.Username, Email: u.Email, Role: Role(u.Role)}
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
