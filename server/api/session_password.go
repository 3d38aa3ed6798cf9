package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// passwordChangeRequest is POST /session/password. No password is ever
// logged.
type passwordChangeRequest struct {
	Username    string `json:"username" jsonschema:"required"`
	Password    string `json:"password" jsonschema:"required,description=the current password (after a reset: the generated one)"`
	NewPassword string `json:"newPassword" jsonschema:"required,description=at least 16 characters and not the current one"`
}

// changePassword is POST /session/password: a user who knows their
// password (a reset one included) sets a new one. The old one is checked
// and throttled as a sign-in is (checkPassword). Sessions and tokens are
// kept: a reset already ended them.
func (s *server) changePassword(c *fiber.Ctx) error {
	var r passwordChangeRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	// The current password is checked first, so the answer says nothing
	// about the new one to whoever does not know it.
	u, err := s.checkPassword(c, r.Username, r.Password)
	if err != nil {
		return err
	}
	if u.DisabledAt != nil {
		return usable(u)
	}
	if f := checkPassword("newPassword", r.NewPassword); f != nil {
		return invalid(*f)
	}
	if r.NewPassword == r.Password {
		return invalid(FieldProblem{"newPassword", "must differ from the current password"})
	}
	hash, err := s.hashPassword([]byte(r.NewPassword))
	if err != nil {
		return err
	}
	if err := s.store.SetOwnPassword(c.UserContext(), u.ID, string(hash)); err != nil {
		return err
	}
	s.log.Info("password changed", "user_id", u.ID, "username", u.Username, "request_id", requestID(c))
	return c.SendStatus(http.StatusNoContent)
}
