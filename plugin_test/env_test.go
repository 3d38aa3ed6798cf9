package plugin_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// The host's secrets stay in the host: a launched plugin's environment, as
// the kernel holds it, has none of them, only what the allow-list and the
// operator's per-plugin settings give it.
func TestPluginEnvironmentHoldsNoHostSecrets(t *testing.T) {
	secrets := map[string]string{
		"KUBEOPERA_ENCRYPTION_KEY":     "c2VjcmV0LWVuY3J5cHRpb24ta2V5LTMyLWJ5dGVzISE=",
		"KUBEOPERA_ADMIN_TOKEN":        "admin-token-do-not-leak",
		"KUBEOPERA_SETUP_SECRET":       "setup-secret-do-not-leak",
		"KUBEOPERA_DATABASE_URL":       "postgres://kubeopera:db-password-do-not-leak@db/kubeopera",
		"AWS_SECRET_ACCESS_KEY":        "host-aws-secret-do-not-leak-0123456789abc",
		"KUBEOPERA_PLUGIN_ENV_OTHER_X": "setting-for-another-plugin",
		// Only the Terraform settings named in BaseEnv pass, not the prefix.
		"KUBEOPERA_TERRAFORM_BACKEND_TOKEN": "terraform-backend-token-do-not-leak",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("KUBEOPERA_PLUGIN_ENV_FIXTURE_GREETING", "hello fixture")
	t.Setenv("KUBEOPERA_PLUGIN_PASS_ENV", "FIXTURE_PASSED")
	t.Setenv("FIXTURE_PASSED", "passed by name")
	h, _ := openHost(t, plugin.Options{Dir: pluginDir(t, "fixture"), PassEnv: hostenv.PassEnvFromHost()})
	pid := pidOf(t, h, "fixture").PID
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(raw, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			env[k] = v
		}
	}
	for k, v := range secrets {
		if strings.Contains(string(raw), v) {
			t.Errorf("the plugin's environment holds the value of the host's %s", k)
		}
	}
	if bytes.Contains(raw, []byte("PRIVATE KEY")) {
		t.Errorf("the plugin's environment holds a private key (its TLS identity comes through a pipe)")
	}
	// The handshake cookie, the log level and the number of the descriptor
	// the plugin's TLS identity comes through are the host's to set.
	ours := map[string]bool{"KUBEOPERA_PROVIDER_PLUGIN": true, "KUBEOPERA_LOG_LEVEL": true, "KUBEOPERA_PLUGIN_TLS_FD": true}
	for k := range env {
		if strings.HasPrefix(k, "KUBEOPERA_") && !ours[k] {
			t.Errorf("the plugin received host variable %s", k)
		}
	}
	want := map[string]string{"GREETING": "hello fixture", "FIXTURE_PASSED": "passed by name", "PATH": os.Getenv("PATH")}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("plugin env %s = %q, want %q", k, env[k], v)
		}
	}
}
