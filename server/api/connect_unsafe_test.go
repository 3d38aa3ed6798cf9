package api

import (
	"net/http"
	"strings"
	"testing"
)

// Connect refuses a kubeconfig that would make KubeOpera trust an impostor
// or reach something other than an API server, saying why and which
// setting allows it; with the setting, the request goes on (here to the
// 503 of a server without a management cluster).
func TestConnectRefusesUnsafeKubeconfigsUnlessAllowed(t *testing.T) {
	strict, lenient := newEnv(t, envOpts{}), newEnv(t, envOpts{allowUnsafe: true})
	server := "    server: https://127.0.0.10:6443\n"
	for _, tc := range []struct {
		name, replacement, says string
		// stored: whether the lenient server may go on to store the
		// cluster; a test stores only loopback addresses, so the
		// link-local ones are checked as refused only (the setting is one
		// switch over every reason, shown letting the others through).
		stored bool
	}{
		{"TLS verification off", server + "    insecure-skip-tls-verify: true\n", "insecure-skip-tls-verify", true},
		{"a proxy", server + "    proxy-url: http://127.0.0.9:3128\n", "proxy-url", true},
		{"instance metadata", "    server: http://169.254.169.254\n", "on 169.254.169.254, where clouds serve", false},
		{"IPv6 link-local", "    server: https://[fe80::1]:6443\n", "on fe80::1, where clouds serve", false},
		{"user information in the URL", "    server: https://admin:pw-in-url@127.0.0.10:6443\n", "user information", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git",
				"name": "prod", "provider": "aws", "kubeconfig": strings.Replace(goodKubeconfig, server, tc.replacement, 1)}
			code, resp := strict.do(http.MethodPost, "/api/v1/clusters/connect", strict.admin, body)
			if code != http.StatusBadRequest || !strings.Contains(string(resp), tc.says) ||
				!strings.Contains(string(resp), "--allow-unsafe-kubeconfigs") || strings.Contains(string(resp), "pw-in-url") {
				t.Errorf("refused by default: %d %s; want 400 saying %q and naming the setting", code, resp, tc.says)
			}
			if !tc.stored {
				return
			}
			if code, resp := lenient.do(http.MethodPost, "/api/v1/clusters/connect", lenient.admin, body); code != http.StatusServiceUnavailable {
				t.Errorf("with --allow-unsafe-kubeconfigs: %d %s; want it past the check (503: no management cluster)", code, resp)
			}
		})
	}
}
