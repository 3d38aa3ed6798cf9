package kubeopera

import (
	"strings"
	"testing"
)

// Single sign-on reaches the server as environment, the client secret as
// a mounted file the environment names: never a value in args or env.
func TestChartPassesSingleSignOn(t *testing.T) {
	v := required()
	v["server"] = map[string]any{"sso": map[string]any{"issuerURL": "https://dex.example.com", "clientID": "kubeopera",
		"clientSecret": map[string]any{"existingSecret": "kubeopera-oidc"}, "displayName": "Dex",
		"groupMappings":         []any{map[string]any{"group": "platform", "role": "platform-admin"}},
		"disablePasswordSignIn": true}}
	pod := deployment(t, mustRender(t, v), "kubeopera-server").Spec.Template.Spec
	env := map[string]string{}
	for _, e := range pod.Containers[0].Env {
		env[e.Name] = e.Value
	}
	for name, want := range map[string]string{"KUBEOPERA_OIDC_ISSUER_URL": "https://dex.example.com", "KUBEOPERA_OIDC_CLIENT_ID": "kubeopera",
		"KUBEOPERA_OIDC_DISPLAY_NAME": "Dex", "KUBEOPERA_OIDC_GROUP_MAPPINGS": `[{"group":"platform","role":"platform-admin"}]`,
		"KUBEOPERA_OIDC_CLIENT_SECRET_FILE": "/etc/kubeopera/oidc/client-secret", "KUBEOPERA_DISABLE_PASSWORD_SIGN_IN": "true"} {
		if env[name] != want {
			t.Errorf("%s = %q, want %q", name, env[name], want)
		}
	}
	mounted := false
	for _, vol := range pod.Volumes {
		if vol.Secret != nil && vol.Secret.SecretName == "kubeopera-oidc" {
			mounted = true
		}
	}
	if !mounted {
		t.Error("the client secret's Secret is not mounted")
	}
	v["server"] = map[string]any{"sso": map[string]any{"issuerURL": "https://dex.example.com",
		"groupMappings": []any{map[string]any{"group": "platform", "role": "admin"}}}}
	if _, err := render(t, loadChart(t), namespace, v); err == nil || !strings.Contains(err.Error(), "role") {
		t.Errorf("a mapping to a role that does not exist: %v, want the schema to refuse it", err)
	}
}
