package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/oidc"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Sign-in through the organisation's OpenID Provider: /auth/oidc/login
// sends the browser there with a sealed flow cookie (state, nonce, PKCE
// verifier); /auth/oidc/callback checks what comes back, makes or updates
// the user and starts the same session a password sign-in starts.

// flowCookie carries the sealed oidc.Flow from login to callback. It is
// SameSite=Lax: the callback is a navigation from the provider's site,
// which a Strict cookie would not be sent with.
const flowCookie = "kubeopera_oidc_flow"

// signInPage is the dashboard's sign-in page, where a failed SSO sign-in
// lands with its reason in ?sso_error.
const signInPage = "/signin"

// signInMethods is GET /api/v1/auth/methods.
type signInMethods struct {
	// Password is whether username and password sign-in is on.
	Password bool `json:"password"`
	// SSO is the OpenID Provider, when one is configured.
	SSO *ssoMethod `json:"sso,omitempty"`
}

type ssoMethod struct {
	// DisplayName is what the button says: "Sign in with <displayName>".
	DisplayName string `json:"displayName"`
	// LoginURL starts the sign-in (a browser navigation, not a fetch).
	LoginURL string `json:"loginURL"`
}

func errPasswordsOff() *Problem {
	return problem(http.StatusForbidden, "password sign-in is turned off on this server: sign in with single sign-on, "+
		"or on the server's machine make a token with 'kubeopera tokens create'")
}

// signInMethods tells the sign-in page what to offer.
func (s *server) signInMethods(c *fiber.Ctx) error {
	m := signInMethods{Password: !s.passwordsOff}
	if s.sso != nil {
		m.SSO = &ssoMethod{DisplayName: s.sso.Config().DisplayName, LoginURL: oidc.LoginPath}
	}
	return c.JSON(m)
}

// oidcLogin sends the browser to the provider. ?next= is the dashboard
// path to land on afterwards.
func (s *server) oidcLogin(c *fiber.Ctx) error {
	if s.sso == nil {
		return problem(http.StatusNotFound, "single sign-on is not configured on this server (see --oidc-issuer-url)")
	}
	return s.beginSSO(c, safeNext(c.Query("next")), nil)
}

// beginSSO sends the browser to the provider with the flow cookie; next
// is the dashboard path to land on, cli the CLI's part (nil for the
// dashboard's sign-in).
func (s *server) beginSSO(c *fiber.Ctx, next string, cli *oidc.CLIFlow) error {
	redirect := c.Protocol() + "://" + c.Hostname() + oidc.CallbackPath
	to, flow, err := s.sso.Begin(c.UserContext(), redirect)
	if err != nil {
		s.log.Warn("single sign-on: provider unreachable", "reason", err, "request_id", requestID(c))
		return problem(http.StatusBadGateway, "the identity provider cannot be reached: %v", err)
	}
	flow.Next, flow.CLI = next, cli
	sealed, err := oidc.SealFlow(s.keyring, flow)
	if err != nil {
		return err
	}
	c.Cookie(&fiber.Cookie{Name: flowCookie, Value: sealed, Path: oidc.CallbackPath, HTTPOnly: true,
		SameSite: fiber.CookieSameSiteLaxMode, Secure: c.Protocol() == "https", MaxAge: int(oidc.FlowLifetime / time.Second)})
	return c.Redirect(to, http.StatusSeeOther)
}

// oidcCallback finishes the sign-in and lands on the dashboard: where the
// sign-in started on success, on the sign-in page with the reason
// otherwise.
func (s *server) oidcCallback(c *fiber.Ctx) error {
	if s.sso == nil {
		return problem(http.StatusNotFound, "single sign-on is not configured on this server (see --oidc-issuer-url)")
	}
	flow, err := oidc.OpenFlow(s.keyring, c.Cookies(flowCookie), s.sessions.now())
	c.Cookie(&fiber.Cookie{Name: flowCookie, Value: "", Path: oidc.CallbackPath, HTTPOnly: true,
		SameSite: fiber.CookieSameSiteLaxMode, Secure: c.Protocol() == "https", Expires: time.Unix(0, 0), MaxAge: -1})
	var u *store.User
	if err == nil {
		u, err = s.finishSSO(c, flow)
	}
	if flow.CLI != nil {
		return s.cliCallback(c, flow.CLI, u, err)
	}
	if err == nil {
		_, err = s.newSession(c, u, s.sessions.now())
	}
	if err != nil {
		s.log.Info("single sign-on refused", "reason", err, "request_id", requestID(c))
		return c.Redirect(signInPage+"?sso_error="+url.QueryEscape(ssoMessage(err)), http.StatusSeeOther)
	}
	return c.Redirect(flow.Next, http.StatusSeeOther)
}

// finishSSO verifies the callback and gives the user the role their
// groups map to now; the caller starts the session (or the CLI's code). A
// user whose groups map to no role is refused and signed out everywhere.
func (s *server) finishSSO(c *fiber.Ctx, flow oidc.Flow) (*store.User, error) {
	ctx := c.UserContext()
	q, err := url.ParseQuery(string(c.Request().URI().QueryString()))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", oidc.ErrState, err)
	}
	id, err := s.sso.Finish(ctx, flow, q)
	if err != nil {
		return nil, err
	}
	role, teams, ok := s.sso.Config().Grants(id.Groups)
	if !ok {
		if u, err := s.store.UserByIdentity(ctx, id.Issuer, id.Subject); err == nil {
			if _, err := s.store.DeleteSessionsOfUser(ctx, u.ID); err != nil {
				return nil, err
			}
		}
		return nil, &ssoRefusal{fmt.Sprintf("none of your groups at %s (%s) gives a KubeOpera role: ask an administrator to map one of them",
			s.sso.Config().DisplayName, groupList(id.Groups))}
	}
	username, err := usernameOf(id)
	if err != nil {
		return nil, err
	}
	u, created, err := s.store.SignInExternal(ctx, store.ExternalSignIn{Issuer: id.Issuer, Subject: id.Subject,
		Username: username, Email: id.Email, Role: role})
	var conflict *store.ConflictError
	if errors.As(err, &conflict) {
		return nil, &ssoRefusal{fmt.Sprintf("%s; an administrator must rename or remove that account before you can sign in with %s",
			conflict.Message, s.sso.Config().DisplayName)}
	}
	if err != nil {
		return nil, err
	}
	if created {
		s.log.Info("single sign-on made a user", "user_id", u.ID, "username", u.Username, "role", u.Role)
	}
	// A disabled user is refused here with the reason, as at the password
	// sign-in, instead of being given a session every request refuses.
	if u.DisabledAt != nil {
		return nil, &ssoRefusal{fmt.Sprintf("user %q is disabled: ask a platform admin to enable the account", u.Username)}
	}
	// Team roles follow the groups at every sign-in: a dropped one ends at
	// once, for sessions already open too (roles are read per request).
	if err := s.store.ReplaceExternalMemberships(ctx, u.ID, teams); err != nil {
		return nil, &ssoRefusal{fmt.Sprintf("your groups could not be applied: %v; ask an administrator", err)}
	}
	return u, nil
}

// ssoRefusal is a sign-in the server refuses for a reason the user can
// act on; its message is shown as it is.
type ssoRefusal struct{ msg string }

func (e *ssoRefusal) Error() string { return e.msg }

// ssoMessage is what the sign-in page shows for err: the reason when it
// is the user's or the provider's, a pointer to the log otherwise.
func ssoMessage(err error) string {
	var refusal *ssoRefusal
	switch {
	case errors.As(err, &refusal):
		return refusal.msg
	case errors.Is(err, oidc.ErrFlow), errors.Is(err, oidc.ErrState):
		return err.Error()
	case errors.Is(err, oidc.ErrDenied), errors.Is(err, oidc.ErrExchange), errors.Is(err, oidc.ErrToken):
		return err.Error()
	}
	return "single sign-on failed on the server; its log has the reason"
}

// usernameOf picks a username for a user made at first sign-in: the
// provider's preferred_username, else the email's local part.
func usernameOf(id *oidc.Identity) (string, error) {
	if id.Email == "" {
		return "", &ssoRefusal{"the identity provider sent no email address: ask for the \"email\" scope (--oidc-scopes)"}
	}
	local, _, _ := strings.Cut(id.Email, "@")
	for _, name := range []string{id.PreferredUsername, local} {
		if name != "" && len(name) <= store.MaxUsernameLength && checkUsername("username", name) == nil {
			return name, nil
		}
	}
	return "", &ssoRefusal{fmt.Sprintf("neither preferred_username %q nor the email's %q is a usable username "+
		"(3 to %d letters, digits, '.', '_' or '-')", id.PreferredUsername, local, store.MaxUsernameLength)}
}

func groupList(groups []string) string {
	if len(groups) == 0 {
		return "the token names no groups: is the groups scope asked for and --oidc-groups-claim right?"
	}
	const most = 10
	if len(groups) > most {
		return strings.Join(groups[:most], ", ") + fmt.Sprintf(" and %d more", len(groups)-most)
	}
	return strings.Join(groups, ", ")
}

// safeNext keeps ?next= to a path of this server.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return "/clusters"
}
