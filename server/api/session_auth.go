package api

import (
	"crypto/subtle"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// authorizeSession authenticates a request by its session cookie, checks
// the CSRF token of a mutating request, and compares the user's role with
// what the route needs. authorize calls it for requests without a bearer
// token.
func (s *server) authorizeSession(c *fiber.Ctx, need Role, sc scope) error {
	sess, u, err := s.store.UseSession(c.UserContext(), HashToken(c.Cookies(sessionCookie)), s.sessions.now(), s.sessions.Idle)
	switch {
	case errors.Is(err, store.ErrSessionExpired):
		clearSessionCookie(c)
		return problem(http.StatusUnauthorized, "your session has expired; sign in again")
	case errors.Is(err, store.ErrNotFound):
		clearSessionCookie(c)
		return problem(http.StatusUnauthorized, "you are signed out; sign in again")
	case err != nil:
		return err
	}
	// The principal is known before the CSRF check, so a refusal is
	// recorded with the signed-in user.
	p := principal{Name: u.Username, Role: Role(u.Role), UserID: u.ID}
	c.Locals(principalKey, p)
	if mutating(c.Method()) && subtle.ConstantTimeCompare([]byte(c.Get(csrfHeader)), []byte(sess.CSRFToken)) != 1 {
		return problem(http.StatusForbidden, "missing or wrong %s header: a request that changes something must send the token GET /api/v1/session returned", csrfHeader)
	}
	c.Locals(sessionLocal, sessionAndUser{sess, u})
	return s.admit(c, p, need, sc)
}

func mutating(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}
