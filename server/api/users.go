package api

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// userView is a user as platform admins see them: never a password hash.
type userView struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	Email      string `json:"email"`
	Role       Role   `json:"role"`
	SuperAdmin bool   `json:"superAdmin" jsonschema:"description=the first administrator: only they may disable or delete or reset themselves"`
	Disabled   bool   `json:"disabled"`
	// DisabledAt is when the user was disabled.
	DisabledAt *time.Time `json:"disabledAt,omitempty"`
	// MustChangePassword: the user chooses a new password at the next
	// sign-in.
	MustChangePassword bool      `json:"mustChangePassword"`
	CreatedAt          time.Time `json:"createdAt"`
}

type userList struct {
	Items []userView `json:"items"`
}

// userCreateRequest is POST /users.
type userCreateRequest struct {
	Username string `json:"username" jsonschema:"required"`
	Email    string `json:"email" jsonschema:"required"`
	Role     Role   `json:"role" jsonschema:"required"`
	// Password, when absent, is generated and answered once.
	Password string `json:"password,omitempty" jsonschema:"description=at least 16 characters; absent: one is generated and shown once. The user chooses a new one at the first sign-in either way"`
}

// createdUser is the answer to POST /users and to a password reset: the
// generated password is shown this once.
type createdUser struct {
	User userView `json:"user"`
	// GeneratedPassword is empty when the request gave one.
	GeneratedPassword string `json:"generatedPassword,omitempty" jsonschema:"description=the password to hand to the user: shown only this once"`
}

// accessEnded says what ending a user's access ended.
type accessEnded struct {
	SessionsEnded int `json:"sessionsEnded"`
	TokensRevoked int `json:"tokensRevoked"`
}

func viewUser(u store.User) userView {
	return userView{ID: u.ID, Username: u.Username, Email: u.Email, Role: Role(u.Role), SuperAdmin: u.SuperAdmin,
		Disabled: u.DisabledAt != nil, DisabledAt: u.DisabledAt, MustChangePassword: u.MustChangePassword, CreatedAt: u.CreatedAt}
}

// listUsers is GET /users.
func (s *server) listUsers(c *fiber.Ctx) error {
	rows, err := s.store.ListUsers(c.UserContext())
	if err != nil {
		return err
	}
	out := userList{Items: make([]userView, 0, len(rows))}
	for _, u := range rows {
		out.Items = append(out.Items, viewUser(u))
	}
	return c.JSON(out)
}

// createUser is POST /users: the user must choose a new password at the
// first sign-in, since an admin knows the one it starts with.
func (s *server) createUser(c *fiber.Ctx) error {
	var r userCreateRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	generated := ""
	if r.Password == "" {
		generated = newPassword()
		r.Password = generated
	}
	checks := []*FieldProblem{checkUsername("username", r.Username), checkEmail("email", r.Email), checkPassword("password", r.Password)}
	if _, err := ParseRole(string(r.Role)); err != nil {
		checks = append(checks, &FieldProblem{"role", err.Error()})
	}
	if err := collect(checks...); err != nil {
		return err
	}
	hash, err := s.hashPassword([]byte(r.Password))
	if err != nil {
		return err
	}
	u := &store.User{Username: r.Username, Email: r.Email, PasswordHash: string(hash), Role: r.Role, MustChangePassword: true}
	if err := s.changeAudited(c, http.StatusCreated, func(ev *store.AuditEvent) error {
		return s.store.CreateUser(c.UserContext(), u, ev)
	}); err != nil {
		return err
	}
	c.Locals(auditTargetKey, u.ID)
	s.log.Info("user created", "user_id", u.ID, "username", u.Username, "role", u.Role, "by", who(c).Name, "request_id", requestID(c))
	return c.Status(http.StatusCreated).JSON(createdUser{User: viewUser(*u), GeneratedPassword: generated})
}

// newPassword is a generated password: 144 random bits, 24 characters.
func newPassword() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
