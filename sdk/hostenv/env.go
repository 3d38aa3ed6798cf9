package hostenv

import (
	"os"
	"sort"
	"strings"
)

// A plugin starts with a clean environment: none of the host's own
// variables (KUBEOPERA_ENCRYPTION_KEY, database URLs, admin tokens, cloud
// keys) reach it unless the operator names them. It gets:
//
//   - the variables of BaseEnv, when the host has them (a search path, a
//     home and temporary directory, locale, time zone, TLS roots and
//     proxies, the management cluster's KUBECONFIG path);
//   - KUBEOPERA_LOG_LEVEL, so its log level follows the host's;
//   - every variable the operator passes through by name with
//     the host's Options.PassEnv or KUBEOPERA_PLUGIN_PASS_ENV (a comma-separated list;
//     a name ending in * is a prefix, e.g. AWS_ENDPOINT_URL*);
//   - for plugin <name>, KUBEOPERA_PLUGIN_ENV_<NAME>_<VAR>=value as
//     VAR=value, where NAME is the plugin name upper-cased with '-' as '_'
//     (KUBEOPERA_PLUGIN_ENV_AWS_EKS_KUBEOPERA_TERRAFORM_EXECUTOR=job gives
//     aws-eks KUBEOPERA_TERRAFORM_EXECUTOR=job);
//   - the go-plugin handshake variables, which go-plugin adds itself.

// BaseEnv lists the host variables every plugin receives when set.
var BaseEnv = []string{
	"PATH", "HOME", "USER", "TMPDIR", "LANG", "LC_ALL", "TZ",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"KUBECONFIG", "KUBEOPERA_LOG_LEVEL",
	// The documented, non-secret settings of the plugins this repository
	// ships: the Terraform runner's (executor, image, workspace, module
	// tree, state cluster), the AWS plugins' endpoints and credential
	// check, and the local provider's directories. None of them holds a
	// secret. The Terraform ones are named exactly, not by prefix: any
	// other KUBEOPERA_TERRAFORM_* variable of the host (a backend token,
	// say) stays in the host unless the operator passes it by name.
	"KUBEOPERA_TERRAFORM_EXECUTOR", "KUBEOPERA_TERRAFORM_DIR", "KUBEOPERA_TERRAFORM_IMAGE", "KUBEOPERA_TERRAFORM_MODULE_DIR",
	"KUBEOPERA_STATE_KUBECONFIG", "KUBEOPERA_AWS_PREFLIGHT",
	"AWS_ENDPOINT_URL*", "KUBEOPERA_LOCAL_CLUSTERS_DIR", "KUBEOPERA_TESTBIN_DIR",
}

// PassEnvVar is the host variable listing more variables to pass through.
const PassEnvVar = "KUBEOPERA_PLUGIN_PASS_ENV"

// PluginEnvPrefix starts a variable meant for one plugin only.
const PluginEnvPrefix = "KUBEOPERA_PLUGIN_ENV_"

// PassEnvFromHost returns the names listed in KUBEOPERA_PLUGIN_PASS_ENV.
func PassEnvFromHost() []string {
	var out []string
	for _, n := range strings.Split(os.Getenv(PassEnvVar), ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// PluginEnv builds the environment of plugin name from the host's
// environment host (os.Environ form), sorted for a stable result.
func PluginEnv(name string, host []string, pass []string) []string {
	own := PluginEnvPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + "_"
	allowed := func(key string) bool {
		for _, p := range append(BaseEnv, pass...) {
			if p == key || strings.HasSuffix(p, "*") && strings.HasPrefix(key, strings.TrimSuffix(p, "*")) {
				return true
			}
		}
		return false
	}
	out := map[string]string{}
	for _, kv := range host {
		key, val, ok := strings.Cut(kv, "=")
		if !ok || strings.HasPrefix(key, PluginEnvPrefix) {
			continue
		}
		if allowed(key) {
			out[key] = val
		}
	}
	for _, kv := range host { // a plugin's own settings win
		key, val, _ := strings.Cut(kv, "=")
		if v := strings.TrimPrefix(key, own); v != key && v != "" {
			out[v] = val
		}
	}
	env := make([]string, 0, len(out))
	for k, v := range out {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}
