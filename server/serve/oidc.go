package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ochestra-tech/kubeopera/server/oidc"
)

// SSOConfig is how `kubeopera server` reaches its OpenID Provider. The
// client secret is read from a file (a mounted Secret), never taken as a
// flag value, which anyone on the machine could read in ps.
type SSOConfig struct {
	IssuerURL, ClientID, ClientSecretFile, RedirectURL string
	Scopes                                             []string
	GroupsClaim, DisplayName                           string
	// GroupMappings is a JSON list of {"group", "role", "team"}: with a
	// team, a role on that team; without, a global role.
	GroupMappings string
	// PasswordsOff refuses local password sign-in.
	PasswordsOff bool
}

// Provider builds the OpenID Provider client, nil when no issuer is set.
func (c SSOConfig) Provider() (*oidc.Provider, error) {
	if c.IssuerURL == "" {
		if c.PasswordsOff {
			return nil, fmt.Errorf("--disable-password-sign-in needs --oidc-issuer-url: otherwise no one could sign in to the dashboard")
		}
		return nil, nil
	}
	var mappings []oidc.Mapping
	if strings.TrimSpace(c.GroupMappings) != "" {
		dec := json.NewDecoder(strings.NewReader(c.GroupMappings))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&mappings); err != nil {
			return nil, fmt.Errorf(`--oidc-group-mappings: %w; want JSON like [{"group":"platform-team","role":"platform-admin"}]`, err)
		}
	}
	secret := ""
	if c.ClientSecretFile != "" {
		b, err := os.ReadFile(c.ClientSecretFile)
		if err != nil {
			return nil, fmt.Errorf("--oidc-client-secret-file: %w", err)
		}
		secret = strings.TrimSpace(string(b))
	}
	cfg := oidc.Config{Issuer: c.IssuerURL, ClientID: c.ClientID, ClientSecret: secret, RedirectURL: c.RedirectURL,
		Scopes: c.Scopes, GroupsClaim: c.GroupsClaim, Mappings: mappings, DisplayName: c.DisplayName}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("single sign-on settings: %w", err)
	}
	return oidc.New(cfg), nil
}
