// Package oidc signs people in through the organisation's OpenID Provider
// (Dex, Keycloak, Okta, Entra ID, ...): the authorization-code flow with
// PKCE, state and nonce, ID tokens verified with go-oidc, and the mapping
// from the provider's groups to KubeOpera roles. It knows nothing of
// sessions or users: the API turns an Identity into both.
package oidc

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// DefaultScopes are asked for when the configuration names none.
var DefaultScopes = []string{"openid", "profile", "email", "groups"}

// DefaultGroupsClaim is the ID token claim groups are read from.
const DefaultGroupsClaim = "groups"

// Mapping gives the members of Group a role: on Team when it is set (a
// team role: viewer, operator or admin), else globally (member, viewer or
// platform-admin).
type Mapping struct {
	Group string `json:"group"`
	Role  string `json:"role"`
	Team  string `json:"team,omitempty"`
}

// Config is how the server reaches its provider.
type Config struct {
	// Issuer is the provider's issuer URL; its discovery document is at
	// Issuer + "/.well-known/openid-configuration".
	Issuer string
	// ClientID and ClientSecret are KubeOpera's registration with the
	// provider. The secret comes from a file, never a flag.
	ClientID, ClientSecret string
	// RedirectURL is the callback registered with the provider, e.g.
	// https://kubeopera.example.com/api/v1/auth/oidc/callback; empty means
	// derived from each request's scheme and host.
	RedirectURL string
	// Scopes asked for; empty means DefaultScopes. "openid" is always asked.
	Scopes []string
	// GroupsClaim names the claim holding the user's groups.
	GroupsClaim string
	// Mappings from groups to roles; a user in no mapped group is refused.
	Mappings []Mapping
	// DisplayName is the provider as the sign-in page names it.
	DisplayName string
	// Now is the clock ID tokens are checked against (default time.Now).
	Now func() time.Time
}

// Enabled reports whether OIDC sign-in is configured at all.
func (c Config) Enabled() bool { return c.Issuer != "" }

// WithDefaults fills what c leaves out.
func (c Config) WithDefaults() Config {
	if len(c.Scopes) == 0 {
		c.Scopes = DefaultScopes
	}
	if !slices.Contains(c.Scopes, "openid") {
		c.Scopes = append([]string{"openid"}, c.Scopes...)
	}
	if c.GroupsClaim == "" {
		c.GroupsClaim = DefaultGroupsClaim
	}
	if c.DisplayName == "" {
		c.DisplayName = "single sign-on"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Check says what is wrong with an enabled configuration.
func (c Config) Check() error {
	var errs []error
	if u, err := url.Parse(c.Issuer); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		errs = append(errs, fmt.Errorf("issuer %q: must be an http(s) URL, e.g. https://dex.example.com", c.Issuer))
	}
	if c.ClientID == "" {
		errs = append(errs, errors.New("client ID: is required"))
	}
	if c.ClientSecret == "" {
		errs = append(errs, errors.New("client secret: is required (put it in a file and name the file)"))
	}
	if c.RedirectURL != "" {
		if u, err := url.Parse(c.RedirectURL); err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("redirect URL %q: must be an absolute URL ending in %s", c.RedirectURL, CallbackPath))
		}
	}
	if len(c.Mappings) == 0 {
		errs = append(errs, errors.New("group mappings: at least one is needed, or no one could sign in"))
	}
	for i, m := range c.Mappings {
		if strings.TrimSpace(m.Group) == "" {
			errs = append(errs, fmt.Errorf("group mapping %d: group is required", i+1))
		}
		parse, where := access.ParseGlobal, "a mapping without a team gives a global role"
		if m.Team != "" {
			parse, where = access.ParseTeam, fmt.Sprintf("a role on team %q", m.Team)
			if err := access.CheckTeamName(m.Team); err != nil {
				errs = append(errs, fmt.Errorf("group mapping %d (group %q): %w", i+1, m.Group, err))
			}
		}
		if _, err := parse(m.Role); err != nil {
			errs = append(errs, fmt.Errorf("group mapping %d (group %q, %s): %w", i+1, m.Group, where, err))
		}
	}
	return errors.Join(errs...)
}

// Grants is what a member of groups gets: the highest global role the
// mappings give (Member when only team roles), and the highest role on
// each team. ok is false when no mapping names any of the groups.
func (c Config) Grants(groups []string) (global access.Role, teams map[string]access.Role, ok bool) {
	teams = map[string]access.Role{}
	global = access.Anonymous
	for _, m := range c.Mappings {
		if !slices.Contains(groups, m.Group) {
			continue
		}
		ok = true
		if m.Team == "" {
			global = access.Highest(global, access.Role(m.Role))
			continue
		}
		teams[m.Team] = access.Highest(teams[m.Team], access.Role(m.Role))
	}
	if ok {
		global = access.Highest(global, access.Member)
	}
	return global, teams, ok
}

// The API's paths for the flow.
const (
	LoginPath    = "/api/v1/auth/oidc/login"
	CallbackPath = "/api/v1/auth/oidc/callback"
)
