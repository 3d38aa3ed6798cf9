package kubeconfig

import (
	"strings"
	"testing"
)

func TestExternalReferencesAreListed(t *testing.T) {
	base := func(user, cluster string) string {
		return "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://203.0.113.1:6443\n" + cluster +
			"users:\n- name: u\n  user:\n" + user +
			"contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n"
	}
	cases := []struct {
		name, user, cluster, want string
	}{
		{"embedded token is self-contained", "    token: abc\n", "", ""},
		{"exec plugin", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: aws\n", "", "exec plugin (aws)"},
		{"auth provider", "    auth-provider:\n      name: oidc\n", "", `auth-provider "oidc"`},
		{"token file", "    tokenFile: /var/run/token\n", "", "refers to files"},
		{"client key file", "    client-key: /home/me/key.pem\n", "", "refers to files"},
		{"CA file", "    token: abc\n", "    certificate-authority: /etc/ca.pem\n", "certificate-authority file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := Validate([]byte(base(tc.user, tc.cluster)), 0)
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			got := strings.Join(sum.External, "; ")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("External = %q, want it to mention %q", got, tc.want)
			}
		})
	}
}
