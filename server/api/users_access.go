package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// targetUser loads the user in the path. With guarded, a super-admin is
// refused (403) to anyone but themselves: the first administrator cannot
// be disabled, deleted or reset by another admin.
func (s *server) targetUser(c *fiber.Ctx, guarded bool, doing string) (*store.User, error) {
	u, err := s.store.GetUser(c.UserContext(), c.Params("id"))
	if err != nil {
		return nil, err
	}
	if guarded && u.SuperAdmin && who(c).UserID != u.ID {
		return nil, problem(http.StatusForbidden, "user %q is the super-admin: only they may %s their own account", u.Username, doing)
	}
	return u, nil
}

// disableUser is POST /users/{id}/disable: the user's sessions end and
// tokens are revoked in the same transaction, so they stop at once.
func (s *server) disableUser(c *fiber.Ctx) error { return s.setDisabled(c, true) }

// enableUser is POST /users/{id}/enable. Tokens revoked by the disable
// stay revoked.
func (s *server) enableUser(c *fiber.Ctx) error { return s.setDisabled(c, false) }

func (s *server) setDisabled(c *fiber.Ctx, disabled bool) error {
	doing := "enable"
	if disabled {
		doing = "disable"
	}
	u, err := s.targetUser(c, disabled, doing)
	if err != nil {
		return err
	}
	if err := s.changeAudited(c, http.StatusOK, func(ev *store.AuditEvent) error {
		return s.store.SetUserDisabled(c.UserContext(), u.ID, disabled, ev)
	}); err != nil {
		return err
	}
	if u, err = s.store.GetUser(c.UserContext(), u.ID); err != nil {
		return err
	}
	s.log.Info("user "+doing+"d", "user_id", u.ID, "username", u.Username, "by", who(c).Name, "request_id", requestID(c))
	return c.JSON(viewUser(*u))
}

// deleteUser is DELETE /users/{id}.
func (s *server) deleteUser(c *fiber.Ctx) error {
	u, err := s.targetUser(c, true, "delete")
	if err != nil {
		return err
	}
	if err := s.changeAudited(c, http.StatusNoContent, func(ev *store.AuditEvent) error {
		return s.store.DeleteUser(c.UserContext(), u.ID, ev)
	}); err != nil {
		return err
	}
	s.log.Info("user deleted", "user_id", u.ID, "username", u.Username, "by", who(c).Name, "request_id", requestID(c))
	return c.SendStatus(http.StatusNoContent)
}

// resetPassword is POST /users/{id}/password-reset: a generated password,
// shown once, that the user must replace at the next sign-in; their
// sessions and tokens end with the old one.
func (s *server) resetPassword(c *fiber.Ctx) error {
	u, err := s.targetUser(c, true, "reset the password of")
	if err != nil {
		return err
	}
	password := newPassword()
	hash, err := s.hashPassword([]byte(password))
	if err != nil {
		return err
	}
	if err := s.changeAudited(c, http.StatusOK, func(ev *store.AuditEvent) error {
		return s.store.ResetPassword(c.UserContext(), u.ID, string(hash), ev)
	}); err != nil {
		return err
	}
	if u, err = s.store.GetUser(c.UserContext(), u.ID); err != nil {
		return err
	}
	s.log.Info("password reset", "user_id", u.ID, "username", u.Username, "by", who(c).Name, "request_id", requestID(c))
	return c.JSON(createdUser{User: viewUser(*u), GeneratedPassword: password})
}

// endUserSessions is DELETE /users/{id}/sessions: every session of the
// user ends and every login token of theirs is revoked.
func (s *server) endUserSessions(c *fiber.Ctx) error {
	var out accessEnded
	if err := s.changeAudited(c, http.StatusOK, func(ev *store.AuditEvent) (err error) {
		out.SessionsEnded, out.TokensRevoked, err = s.store.EndUserSessions(c.UserContext(), c.Params("id"), ev)
		return err
	}); err != nil {
		return err
	}
	return c.JSON(out)
}

// listUserTokens is GET /users/{id}/tokens: the user's login tokens.
func (s *server) listUserTokens(c *fiber.Ctx) error {
	u, err := s.store.GetUser(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	rows, err := s.store.ListUserTokens(c.UserContext(), u.ID)
	if err != nil {
		return err
	}
	out := tokenList{Items: make([]tokenView, 0, len(rows))}
	for _, t := range rows {
		out.Items = append(out.Items, viewToken(t))
	}
	return c.JSON(out)
}

// revokeUserToken is DELETE /users/{id}/tokens/{tokenId}: only a token
// of that user is found.
func (s *server) revokeUserToken(c *fiber.Ctx) error {
	return s.changeAudited(c, http.StatusNoContent, func(ev *store.AuditEvent) error {
		if _, err := s.store.RevokeToken(c.UserContext(), c.Params("tokenId"), c.Params("id"), ev); err != nil {
			return err
		}
		return c.SendStatus(http.StatusNoContent)
	})
}
