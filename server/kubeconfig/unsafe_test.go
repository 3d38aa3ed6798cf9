package kubeconfig

import (
	"context"
	"errors"
	"net/netip"
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
		{"instance metadata", "http://169.254.169.254/latest", "", "on 169.254.169.254, where clouds serve"},
		{"IPv6 link-local", "https://[fe80::1]:6443", "", "on fe80::1, where"},
		{"IPv4-mapped link-local", "https://[::ffff:169.254.1.1]:6443", "", "on 169.254.1.1, where"},
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

// Instance metadata is refused however its address is written, by the
// names clouds serve it under, and by what a name resolves to.
func TestMetadataServiceInEverySpelling(t *testing.T) {
	defer func(r func(context.Context, string) ([]netip.Addr, error)) { resolve = r }(resolve)
	resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "imds.attacker.example":
			return []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("169.254.169.254")}, nil
		case "kube.example":
			return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
		}
		return nil, errors.New("no such host")
	}
	refused := []string{
		"169.254.169.254", "[fd00:ec2::254]", "100.100.100.200", "metadata.google.internal", "METADATA.google.internal.",
		"2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518", "0xa9.0xfe.0xa9.0xfe",
		"[64:ff9b::a9fe:a9fe]", "[::169.254.169.254]", "[::ffff:a9fe:a9fe]", "imds.attacker.example",
	}
	for _, h := range refused {
		if _, ok := metadataHost(strings.Trim(h, "[]")); !ok {
			t.Errorf("%s reaches instance metadata and was not refused", h)
		}
	}
	for _, h := range []string{"203.0.113.1", "10.0.0.1", "kube.example", "nowhere.example", "100.100.100.201", "3405803777"} {
		if where, ok := metadataHost(h); ok {
			t.Errorf("%s refused as instance metadata (%s)", h, where)
		}
	}
	sum, err := Validate([]byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://2852039166:6443\n"+
		"users:\n- name: u\n  user:\n    token: abc\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n"), 0)
	if err != nil || !strings.Contains(strings.Join(sum.Unsafe, ";"), "169.254.169.254") {
		t.Errorf("a decimal metadata address: Unsafe = %v, %v; want it named as 169.254.169.254", sum.Unsafe, err)
	}
}

// An API server in clear is refused: KubeOpera's credential would travel
// readable.
func TestPlainHTTPServerIsUnsafe(t *testing.T) {
	sum, err := Validate([]byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://203.0.113.1:8080\n"+
		"users:\n- name: u\n  user:\n    token: abc\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n"), 0)
	if err != nil || !strings.Contains(strings.Join(sum.Unsafe, ";"), "http://") {
		t.Errorf("Unsafe = %v, %v; want the http:// server named", sum.Unsafe, err)
	}
}
