package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSSOSettingsSayWhatIsWrong(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := SSOConfig{IssuerURL: "https://dex.example.com", ClientID: "kubeopera", ClientSecretFile: secret,
		GroupMappings: `[{"group":"platform","role":"platform-admin"},{"group":"devs","role":"viewer","team":"a"}]`}
	for _, tc := range []struct {
		name, want string
		change     func(*SSOConfig)
	}{
		{"a complete configuration is taken", "", func(*SSOConfig) {}},
		{"no issuer means no single sign-on", "", func(c *SSOConfig) { *c = SSOConfig{} }},
		{"passwords off without single sign-on locks everyone out", "needs --oidc-issuer-url", func(c *SSOConfig) { *c = SSOConfig{PasswordsOff: true} }},
		{"mappings that are not JSON", "--oidc-group-mappings", func(c *SSOConfig) { c.GroupMappings = "platform=platform-admin" }},
		{"a global mapping to a team role", `group mapping 1 (group "platform", a mapping without a team gives a global role): role must be one of "member", "viewer", "platform-admin", not "admin"`, func(c *SSOConfig) {
			c.GroupMappings = `[{"group":"platform","role":"admin"}]`
		}},
		{"a team mapping to a global role", `group mapping 1 (group "ops", a role on team "a"): role must be one of "viewer", "operator", "admin", not "platform-admin"`, func(c *SSOConfig) {
			c.GroupMappings = `[{"group":"ops","role":"platform-admin","team":"a"}]`
		}},
		{"a mapping to a team name that cannot be", `team name "A B"`, func(c *SSOConfig) {
			c.GroupMappings = `[{"group":"ops","role":"viewer","team":"A B"}]`
		}},
		{"no mappings", "at least one is needed", func(c *SSOConfig) { c.GroupMappings = "" }},
		{"a secret file that is not there", "--oidc-client-secret-file", func(c *SSOConfig) { c.ClientSecretFile = secret + ".missing" }},
		{"no secret at all", "client secret: is required", func(c *SSOConfig) { c.ClientSecretFile = "" }},
		{"an issuer that is not a URL", "must be an http(s) URL", func(c *SSOConfig) { c.IssuerURL = "dex.example.com" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			p, err := c.Provider()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Provider: %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Provider: %v, want an error with %q", err, tc.want)
			case tc.want == "" && c.IssuerURL != "" && p.Config().ClientSecret != "s3cret":
				t.Errorf("client secret read as %q, want the file's, trimmed", p.Config().ClientSecret)
			}
		})
	}
}
