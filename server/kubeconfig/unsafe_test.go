package kubeconfig

import (
	"strings"
	"testing"
)

func TestUnsafeSettingsAreListedWithWhy(t *testing.T) {
	base := func(server, cluster string) string {
		return "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + server + "\n" + cluster +
			"users:\n- name: u\n  user:\n    token: abc\n" +
			"contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n"
	}
	cases := []struct {
		name, server, cluster, want string
	}{
		{"verified TLS to a routable address", "https://203.0.113.1:6443", "", ""},
		{"a private address is fine", "https://10.0.0.1:6443", "", ""},
		{"TLS verification off", "https://203.0.113.1:6443", "    insecure-skip-tls-verify: true\n", "could pose as it"},
		{"a proxy", "https://203.0.113.1:6443", "    proxy-url: http://203.0.113.9:3128\n", "proxy-url"},
		{"instance metadata", "http://169.254.169.254/latest", "", "link-local address 169.254.169.254"},
		{"IPv6 link-local", "https://[fe80::1]:6443", "", "link-local address fe80::1"},
		{"IPv4-mapped link-local", "https://[::ffff:169.254.1.1]:6443", "", "link-local address 169.254.1.1"},
		{"user information", "https://admin:hunter2@203.0.113.1:6443", "", "user information"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := Validate([]byte(base(tc.server, tc.cluster)), 0)
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			got := strings.Join(sum.Unsafe, "; ")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("Unsafe = %q, want it to mention %q", got, tc.want)
			}
			if strings.Contains(got, "hunter2") {
				t.Errorf("the password in the URL reached the message: %q", got)
			}
		})
	}
}
