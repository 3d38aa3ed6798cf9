package api

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Password rules for users. bcrypt reads at most 72 bytes and refuses more,
// so a longer password is refused here rather than silently cut.
const (
	minPasswordChars = 16
	maxPasswordBytes = 72
	maxEmailBytes    = 254
	minUsernameChars = 3
)

// passwordHashCost is the bcrypt cost of stored passwords.
const passwordHashCost = bcrypt.DefaultCost

// errAdminExists is the answer to every setup call once one has succeeded.
func errAdminExists() *Problem {
	return problem(http.StatusConflict, "an administrator already exists; this endpoint works only once")
}

// setupAdminRequest is POST /setup/admin. Password is never logged or
// returned.
type setupAdminRequest struct {
	Email    string `json:"email" jsonschema:"required"`
	Username string `json:"username" jsonschema:"required"`
	Password string `json:"password" jsonschema:"required"`
}

// setupAdminResponse is the created super-admin, without any trace of the
// password.
type setupAdminResponse struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Username  string    `json:"username"`
	CreatedAt time.Time `json:"createdAt"`
}

// setupStatus is GET /setup.
type setupStatus struct {
	AdminExists bool `json:"adminExists"`
}

// setupStatus tells the installer whether the first administrator exists,
// so it can tell before calling setupAdmin.
func (s *server) setupStatus(c *fiber.Ctx) error {
	exists, err := s.store.SuperAdminExists(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(setupStatus{AdminExists: exists})
}

// SetupSecretHeader carries the one-time setup secret on POST /setup/admin.
const SetupSecretHeader = "X-KubeOpera-Setup-Secret"

// setupAdmin creates the super-admin. It carries no token, being how a new
// installation gets its first user, so it needs the one-time setup secret
// only the installer holds, and works only while there is no super-admin
// (which can never be deleted: once one exists the secret is used up).
// Calls are serialised and the existence check comes first, so late or
// concurrent calls are answered 409 without a bcrypt hash each; the
// database's one-super-admin index still decides between servers.
func (s *server) setupAdmin(c *fiber.Ctx) error {
	var r setupAdminRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	s.setupMu.Lock()
	defer s.setupMu.Unlock()
	ctx := c.UserContext()
	exists, err := s.store.SuperAdminExists(ctx)
	if err != nil {
		return err
	}
	if exists {
		return errAdminExists()
	}
	if err := collect(checkEmail("email", r.Email), checkUsername("username", r.Username),
		checkPassword("password", r.Password)); err != nil {
		return err
	}
	if err := s.checkSetupSecret(c.Get(SetupSecretHeader)); err != nil {
		return err
	}
	hash, err := s.hashPassword([]byte(r.Password))
	if err != nil {
		return fmt.Errorf("hash the administrator's password: %w", err)
	}
	u := &store.User{Email: r.Email, Username: r.Username, PasswordHash: string(hash),
		Role: PlatformAdmin, SuperAdmin: true}
	if err := s.store.CreateUser(ctx, u); err != nil {
		return s.setupConflict(c, err)
	}
	c.Locals(auditActorKey, u.Username)
	c.Locals(auditTargetKey, u.ID)
	s.log.Info("super-admin created", "user_id", u.ID, "username", u.Username, "request_id", requestID(c))
	if s.setupDone != nil {
		s.setupDone(ctx)
	}
	return c.Status(http.StatusCreated).JSON(setupAdminResponse{ID: u.ID, Email: u.Email, Username: u.Username,
		CreatedAt: u.CreatedAt})
}

// checkSetupSecret compares the header with the configured secret in
// constant time. Neither value ever appears in a message.
func (s *server) checkSetupSecret(got string) error {
	if s.setupSecret == "" {
		return problem(http.StatusForbidden, "this server has no setup secret, so no first administrator can be created: "+
			"set KUBEOPERA_SETUP_SECRET, or restart it with a data directory it can write")
	}
	if got == "" {
		// 403, not 401: no Authorization header would help.
		return problem(http.StatusForbidden, "send the one-time setup secret in header %s: it is in the file setup-secret "+
			"in the server's data directory, or the KUBEOPERA_SETUP_SECRET the server was started with", SetupSecretHeader)
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(s.setupSecret)) != 1 {
		return problem(http.StatusForbidden, "the setup secret in header %s is not this server's", SetupSecretHeader)
	}
	return nil
}

func defaultHashPassword(pw []byte) ([]byte, error) {
	return bcrypt.GenerateFromPassword(pw, passwordHashCost)
}

// setupConflict explains a failed insert. A concurrent call that won may
// make the database report its email or username rather than the
// super-admin rule, so any conflict while a super-admin exists is answered
// as "already exists".
func (s *server) setupConflict(c *fiber.Ctx, err error) error {
	var conflict *store.ConflictError
	if !errors.As(err, &conflict) {
		return err
	}
	if conflict.Field == "super_admin" {
		return errAdminExists()
	}
	exists, xerr := s.store.SuperAdminExists(c.UserContext())
	if xerr == nil && exists {
		return errAdminExists()
	}
	return err
}

// checkEmail accepts a bare address such as ops@example.com: no display
// name, and a domain with a dot.
func checkEmail(field, v string) *FieldProblem {
	if v == "" {
		return &FieldProblem{field, "is required"}
	}
	addr, err := mail.ParseAddress(v)
	_, domain, _ := strings.Cut(v, "@")
	if err != nil || addr.Address != v || len(v) > maxEmailBytes || !strings.Contains(domain, ".") {
		return &FieldProblem{field, fmt.Sprintf("must be an email address such as ops@example.com, at most %d characters", maxEmailBytes)}
	}
	return nil
}

// checkUsername applies the DNS-label rules of names, at least 3 long.
func checkUsername(field, v string) *FieldProblem {
	if v != "" && len(v) < minUsernameChars {
		return &FieldProblem{field, fmt.Sprintf("must be at least %d characters, got %d", minUsernameChars, len(v))}
	}
	return checkName(field, v)
}

// checkPassword applies the length rules. Its messages give lengths only,
// never the password.
func checkPassword(field, v string) *FieldProblem {
	switch n := utf8.RuneCountInString(v); {
	case v == "":
		return &FieldProblem{field, "is required"}
	case n < minPasswordChars:
		return &FieldProblem{field, fmt.Sprintf("must be at least %d characters, got %d", minPasswordChars, n)}
	case len(v) > maxPasswordBytes:
		return &FieldProblem{field, fmt.Sprintf("must be at most %d bytes (bcrypt's limit), got %d", maxPasswordBytes, len(v))}
	}
	return nil
}
