package api

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/ochestra-tech/kubeopera/server/oidc"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// `kubeopera login --sso`: the CLI listens on a loopback port and opens
// /auth/oidc/cli/login in the browser with that redirect URI, the S256
// challenge of a verifier it keeps, and its state. The sign-in runs as
// the dashboard's does; the callback then sends the browser to the
// loopback with a one-time code instead of starting a session, and the
// CLI exchanges code and verifier at /auth/oidc/cli/token for a login
// token. The code is sealed with the server's keyring (any replica opens
// it), lives oidc.CLICodeLifetime, is good only with the verifier, and
// once: the token's ID is derived from the code, and the database takes
// one row per ID.

// cliTokenRequest is POST /auth/oidc/cli/token.
type cliTokenRequest struct {
	Code         string `json:"code" jsonschema:"required,description=the code the sign-in sent to the CLI's loopback redirect"`
	CodeVerifier string `json:"codeVerifier" jsonschema:"required,description=the verifier whose S256 challenge started the sign-in"`
	TTLSeconds   int64  `json:"ttlSeconds,omitempty" jsonschema:"minimum=0,maximum=7776000,description=lifetime in seconds (default 30 days, at most 90)"`
}

// cliTokenNamespace derives a token's ID from the code it was issued for.
var cliTokenNamespace = uuid.MustParse("5b0c5d0e-8a57-4c53-9a8e-4f1f3c1d2b6a")

// oidcCLILogin starts a CLI's sign-in (a browser navigation).
func (s *server) oidcCLILogin(c *fiber.Ctx) error {
	if s.sso == nil {
		return problem(http.StatusNotFound, "single sign-on is not configured on this server (see --oidc-issuer-url)")
	}
	cli := &oidc.CLIFlow{Redirect: c.Query("redirect_uri"), Challenge: c.Query("code_challenge"), State: c.Query("state")}
	var bad []*FieldProblem
	if err := oidc.CheckLoopbackRedirect(cli.Redirect); err != nil {
		bad = append(bad, &FieldProblem{"redirect_uri", err.Error()})
	}
	if err := oidc.CheckChallenge(cli.Challenge); err != nil {
		bad = append(bad, &FieldProblem{"code_challenge", err.Error()})
	}
	if l := len(cli.State); l < 16 || l > 256 {
		bad = append(bad, &FieldProblem{"state", "must be 16 to 256 characters, chosen at random by the CLI"})
	}
	if err := collect(bad...); err != nil {
		return err
	}
	return s.beginSSO(c, "/clusters", cli)
}

// cliCallback ends a CLI's sign-in at its loopback redirect: with a
// one-time code for u, or with the reason the sign-in failed (err).
func (s *server) cliCallback(c *fiber.Ctx, cli *oidc.CLIFlow, u *store.User, err error) error {
	to, perr := url.Parse(cli.Redirect)
	if perr != nil || oidc.CheckLoopbackRedirect(cli.Redirect) != nil {
		// The sealed flow had it checked at the start; never send a code
		// anywhere else all the same.
		return c.Redirect(signInPage+"?sso_error="+url.QueryEscape("the CLI's redirect is not a loopback address"), http.StatusSeeOther)
	}
	q := to.Query()
	q.Set("state", cli.State)
	if err == nil {
		var code string
		code, err = oidc.SealCLICode(s.keyring, oidc.CLICode{UserID: u.ID, Challenge: cli.Challenge,
			Expires: s.sessions.now().Add(oidc.CLICodeLifetime), Nonce: randomToken()})
		q.Set("code", code)
	}
	if err != nil {
		s.log.Info("single sign-on refused", "reason", err, "cli", true, "request_id", requestID(c))
		q.Del("code")
		q.Set("error", ssoMessage(err))
	}
	to.RawQuery = q.Encode()
	return c.Redirect(to.String(), http.StatusSeeOther)
}

// oidcCLIToken exchanges a CLI's code and verifier for a login token of
// the signed-in user's role.
func (s *server) oidcCLIToken(c *fiber.Ctx) error {
	// No single sign-on configured is no 404 here: no code can open then.
	var r cliTokenRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	ttl, err := loginTTL(r.TTLSeconds)
	if err != nil {
		return err
	}
	id := uuid.NewSHA1(cliTokenNamespace, []byte(r.Code)).String()
	if used, err := s.store.TokenExists(c.UserContext(), id); err != nil {
		return err
	} else if used {
		return s.codeUsed(c)
	}
	code, err := oidc.OpenCLICode(s.keyring, r.Code, r.CodeVerifier, s.sessions.now())
	if err != nil {
		return problem(http.StatusBadRequest, "%s", err.Error())
	}
	u, err := s.store.GetUser(c.UserContext(), code.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return problem(http.StatusForbidden, "the user who signed in no longer exists")
	}
	if err != nil {
		return err
	}
	if err := usable(u); err != nil {
		return err
	}
	token, hash := NewToken()
	exp := time.Now().UTC().Truncate(time.Microsecond).Add(ttl)
	t := &store.Token{ID: id, Name: loginTokenPrefix + u.Username, Role: string(u.Role), Hash: hash, ExpiresAt: &exp, UserID: u.ID}
	// The look-up above answers a replay plainly; this insert decides
	// between two exchanges of one code racing past it.
	if err := s.store.CreateTokenOnce(c.UserContext(), t); errors.Is(err, store.ErrTokenIDTaken) {
		return s.codeUsed(c)
	} else if err != nil {
		return err
	}
	c.Locals(principalKey, principal{TokenID: t.ID, Name: u.Username, Role: Role(t.Role), UserID: u.ID})
	s.log.Info("API token issued", "token_id", t.ID, "token_name", t.Name, "role", t.Role, "by", u.Username, "sso", true,
		"request_id", requestID(c))
	return c.Status(http.StatusCreated).JSON(issuedToken{tokenView: viewToken(*t), Token: token})
}

func (s *server) codeUsed(c *fiber.Ctx) error {
	s.log.Warn("single sign-on: a CLI sign-in code was used again", "request_id", requestID(c))
	return problem(http.StatusBadRequest, "this sign-in code was used already: run 'kubeopera login --sso' again")
}
