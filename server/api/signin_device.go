package api

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// knownDevice returns the hash of the credential from an earlier password
// sign-in as username that the request carries, or "" when it carries
// none: the dashboard's session cookie, or a login token (one that POST
// /session/tokens issued to that user) as a bearer token. Only a valid
// one counts: a session neither idle nor past its expiry, a token neither
// revoked nor expired. Such a request is the account's owner, or someone
// who holds their signed-in device, so the attempts of others on the
// account do not hold it back (reserveSignIn).
func (s *server) knownDevice(c *fiber.Ctx, username string) (string, error) {
	ctx := c.UserContext()
	if id := c.Cookies(sessionCookie); id != "" {
		hash := HashToken(id)
		_, u, err := s.store.UseSession(ctx, hash, s.sessions.now(), s.sessions.Idle)
		switch {
		case err == nil && u.Username == username:
			return hash, nil
		case err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrSessionExpired):
			return "", err
		}
	}
	token, ok := bearerToken(c.Get(fiber.HeaderAuthorization))
	if !ok {
		return "", nil
	}
	hash := HashToken(token)
	t, err := s.store.TokenByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	// authorize judges tokens by the wall clock, not the sessions'.
	if t.UserID == "" || !t.Active(time.Now()) {
		return "", nil
	}
	u, err := s.store.GetUser(ctx, t.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil || u.Username != username {
		return "", err
	}
	return hash, nil
}
