package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/server/oidc"
	"github.com/ochestra-tech/kubeopera/server/serve"
)

// ssoFlags are the single sign-on settings of `kubeopera server`. The
// client secret is named by file only: a flag's value shows in ps.
func ssoFlags(cmd *cobra.Command, c *serve.SSOConfig) {
	f := cmd.Flags()
	f.StringVar(&c.IssuerURL, "oidc-issuer-url", os.Getenv("KUBEOPERA_OIDC_ISSUER_URL"),
		"issuer URL of the OpenID Provider people sign in with, e.g. https://dex.example.com; empty: no single sign-on (env KUBEOPERA_OIDC_ISSUER_URL)")
	f.StringVar(&c.ClientID, "oidc-client-id", os.Getenv("KUBEOPERA_OIDC_CLIENT_ID"),
		"KubeOpera's client ID at the provider (env KUBEOPERA_OIDC_CLIENT_ID)")
	f.StringVar(&c.ClientSecretFile, "oidc-client-secret-file", os.Getenv("KUBEOPERA_OIDC_CLIENT_SECRET_FILE"),
		"file holding the client secret, e.g. a mounted Secret (env KUBEOPERA_OIDC_CLIENT_SECRET_FILE)")
	f.StringVar(&c.RedirectURL, "oidc-redirect-url", os.Getenv("KUBEOPERA_OIDC_REDIRECT_URL"),
		"callback URL registered at the provider, https://HOST"+oidc.CallbackPath+"; default: from each request's scheme and host (env KUBEOPERA_OIDC_REDIRECT_URL)")
	f.StringSliceVar(&c.Scopes, "oidc-scopes", envList("KUBEOPERA_OIDC_SCOPES"),
		"scopes to ask for (default openid,profile,email,groups; env KUBEOPERA_OIDC_SCOPES, comma-separated)")
	f.StringVar(&c.GroupsClaim, "oidc-groups-claim", envOr("KUBEOPERA_OIDC_GROUPS_CLAIM", oidc.DefaultGroupsClaim),
		"ID token claim that lists the user's groups (env KUBEOPERA_OIDC_GROUPS_CLAIM)")
	f.StringVar(&c.GroupMappings, "oidc-group-mappings", os.Getenv("KUBEOPERA_OIDC_GROUP_MAPPINGS"),
		`groups to roles as JSON, e.g. [{"group":"platform-team","role":"platform-admin"},{"group":"devs","role":"viewer"}]; `+
			`the highest role of a user's groups wins, a user in no listed group is refused; "team" is accepted and not used yet (env KUBEOPERA_OIDC_GROUP_MAPPINGS)`)
	f.StringVar(&c.DisplayName, "oidc-display-name", envOr("KUBEOPERA_OIDC_DISPLAY_NAME", "single sign-on"),
		`the provider's name on the sign-in page's "Sign in with ..." button (env KUBEOPERA_OIDC_DISPLAY_NAME)`)
	f.BoolVar(&c.PasswordsOff, "disable-password-sign-in", os.Getenv("KUBEOPERA_DISABLE_PASSWORD_SIGN_IN") == "true",
		"refuse sign-in with local passwords (single sign-on only); break-glass: 'kubeopera tokens create' on the server's machine (env KUBEOPERA_DISABLE_PASSWORD_SIGN_IN=true)")
}
