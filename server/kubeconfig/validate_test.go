package kubeconfig

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// minimal is a valid kubeconfig; the line numbers of later cases refer to
// variants of it, so its layout matters:
//
//	1 apiVersion  4 - name: dev   8 - name: dev    12 current-context
//	2 kind        5   cluster:    9   context:     13 users:
//	3 clusters:   6     server    10    cluster    14 - name: dev-admin
//	              7 contexts:     11    user
const minimal = `apiVersion: v1
kind: Config
clusters:
- name: dev
  cluster:
    server: https://dev.example.com:6443
contexts:
- name: dev
  context:
    cluster: dev
    user: dev-admin
current-context: dev
users:
- name: dev-admin
  user:
    token: dev-token-value
`

const several = `apiVersion: v1
kind: Config
clusters:
- name: dev
  cluster:
    server: https://dev.example.com:6443
- name: prod
  cluster:
    server: https://admin@prod.example.com
    certificate-authority-data: ` + "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJnVENDQVNlZ0F3SUJBZ0lVQkhJRnNhejh5QlluUUx4UkNWcUw2T2s4TEU0d0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S1ptbDRkSFZ5WlMxallUQWdGdzB5TmpFeE16QXhNelExTXpsYUdBOHlNVEkyTVRFdwpOakV6TkRVek9Wb3dGVEVUTUJFR0ExVUVBd3dLWm1sNGRIVnlaUzFqWVRCWk1CTUdCeXFHU000OUFnRUdDQ3FHClNNNDlBd0VIQTBJQUJMQ0dBdGo1WVg2UGxva0pPaEdEcVM0SXdFWjlvZU5Ra1lvWVFrMWN5b0JJYit5YXJoL1gKa3ZMbWNFeXljZitMUTVjdFlpZHdhb01IRXBmSit5QitMa3VqVXpCUk1CMEdBMVVkRGdRV0JCUi80dSttb0Z1UApwOHQyUlRwQ1E2eFNYbnFDTERBZkJnTlZIU01FR0RBV2dCUi80dSttb0Z1UHA4dDJSVHBDUTZ4U1hucUNMREFQCkJnTlZIUk1CQWY4RUJUQURBUUgvTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSUVQNWVNalZTb3J0a3U4ZkFCaTgKNUswUldHb1FxRXlSckpRMDZ2bDhSRFpkQWlFQTcxSTUydzZFM1drYVJqT09lZ2wzbVNIaFgzaGVobE9INVJuaQphdVNCOEV3PQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==" + `
contexts:
- name: dev
  context: {cluster: dev, user: dev-admin}
- name: staging
  context: {cluster: dev, user: dev-admin, namespace: staging}
- name: prod
  context: {cluster: prod}
current-context: prod
users:
- name: dev-admin
  user:
    token: dev-token-value
`

const jsonConfig = `{
  "apiVersion": "v1",
  "kind": "Config",
  "clusters": [{"name": "kind", "cluster": {"server": "http://127.0.0.1:38080"}}],
  "contexts": [{"name": "kind-kind", "context": {"cluster": "kind", "user": "kind"}}],
  "current-context": "kind-kind",
  "users": [{"name": "kind", "user": {"username": "admin", "password": "pw"}}]
}`

// replace returns minimal with old replaced by new, failing the test if old
// is absent so a fixture cannot silently stop exercising its case.
func replace(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(minimal, old) {
		t.Fatalf("fixture does not contain %q", old)
	}
	return strings.Replace(minimal, old, new, 1)
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		maxBytes int
		want     *Summary
		wantErr  string // substring of Error()
		wantLine int
	}{
		{name: "valid minimal kubeconfig", input: minimal,
			want: &Summary{CurrentContext: "dev", Cluster: "dev", Server: "https://dev.example.com:6443", User: "dev-admin", Contexts: 1}},
		{name: "valid with several contexts, user information dropped from the server", input: several,
			want: &Summary{CurrentContext: "prod", Cluster: "prod", Server: "https://prod.example.com", Contexts: 3,
				Unsafe: []string{`cluster "prod" has user information in its server URL: put credentials in the user, not the URL`}}},
		{name: "valid JSON kubeconfig", input: jsonConfig,
			want: &Summary{CurrentContext: "kind-kind", Cluster: "kind", Server: "http://127.0.0.1:38080", User: "kind", Contexts: 1,
				Unsafe: []string{`cluster "kind" has an http:// server, so KubeOpera's credential for it would travel in clear: use the API server's https:// address`}}},
		{name: "kind and apiVersion may be absent", input: strings.Replace(replace(t, "apiVersion: v1\n", ""), "kind: Config\n", "", 1),
			want: &Summary{CurrentContext: "dev", Cluster: "dev", Server: "https://dev.example.com:6443", User: "dev-admin", Contexts: 1}},
		{name: "trailing document separator is allowed", input: minimal + "---\n",
			want: &Summary{CurrentContext: "dev", Cluster: "dev", Server: "https://dev.example.com:6443", User: "dev-admin", Contexts: 1}},
		{name: "context without a user is valid", input: replace(t, "    user: dev-admin\n", ""),
			want: &Summary{CurrentContext: "dev", Cluster: "dev", Server: "https://dev.example.com:6443", Contexts: 1}},

		{name: "empty", input: "",
			wantErr: "kubeconfig: empty: paste the file's contents"},
		{name: "whitespace only", input: " \n\t\r\n  ",
			wantErr: "kubeconfig: empty: paste the file's contents"},
		{name: "comments only", input: "# nothing here\n",
			wantErr: "holds only comments"},
		{name: "over the size limit", input: minimal, maxBytes: 100,
			wantErr: fmt.Sprintf("too large: %d bytes, over the limit of 100 bytes", len(minimal))},
		{name: "exactly at the size limit", input: minimal, maxBytes: len(minimal),
			want: &Summary{CurrentContext: "dev", Cluster: "dev", Server: "https://dev.example.com:6443", User: "dev-admin", Contexts: 1}},
		{name: "YAML syntax error on line 6", input: replace(t, "    server: https://dev.example.com:6443", "    server: https://dev.example.com:6443: x: y"),
			wantErr: "kubeconfig: line 6: mapping values are not allowed in this context", wantLine: 6},
		// For parser (not scanner) errors yaml.v3 reports the line before the
		// enclosing block, not the bad line (go-yaml/yaml#1066); Validate
		// passes the parser's line on unchanged. The bad line here is 11.
		{name: "parser error keeps the parser's line", input: replace(t, "    cluster: dev\n", "    cluster: dev\n   bad: indent\n"),
			wantErr: "kubeconfig: line 7: did not find expected key", wantLine: 7},
		{name: "tab indentation on line 2", input: "apiVersion: v1\n\tkind: Config\n",
			wantErr: "kubeconfig: line 2: found a tab character that violates indentation", wantLine: 2},
		{name: "two YAML documents", input: minimal + "---\n" + minimal,
			wantErr: "line 17: a second YAML document starts here", wantLine: 17},
		{name: "not a mapping: a list", input: "- apiVersion: v1\n- kind: Config\n",
			wantErr: "line 1: the top level is a list, not a mapping", wantLine: 1},
		{name: "not a mapping: a pasted path", input: "~/.kube/config\n",
			wantErr: "line 1: the top level is a single value, not a mapping", wantLine: 1},
		{name: "wrong kind", input: replace(t, "kind: Config", "kind: Pod"),
			wantErr: `line 2: kind is "Pod"; a kubeconfig has kind: Config`, wantLine: 2},
		{name: "wrong apiVersion", input: replace(t, "apiVersion: v1", "apiVersion: v2"),
			wantErr: `line 1: apiVersion is "v2"; a kubeconfig has apiVersion: v1`, wantLine: 1},
		{name: "no current-context", input: replace(t, "current-context: dev\n", ""),
			wantErr: "no current-context: set current-context to one of the contexts (dev)"},
		{name: "empty current-context names its line", input: replace(t, "current-context: dev", `current-context: ""`),
			wantErr: "line 12: no current-context", wantLine: 12},
		{name: "no contexts at all", input: "apiVersion: v1\nkind: Config\nclusters: []\n",
			wantErr: "no contexts and no current-context"},
		{name: "current-context missing from contexts", input: strings.Replace(several, "current-context: prod", "current-context: production", 1),
			wantErr: `line 18: current-context "production" is not among the contexts (dev, prod, staging)`, wantLine: 18},
		{name: "context's cluster missing", input: replace(t, "    cluster: dev\n", "    cluster: qa\n"),
			wantErr: `line 10: context "dev" names cluster "qa", which is not among the clusters (dev)`, wantLine: 10},
		{name: "context names no cluster", input: replace(t, "    cluster: dev\n", ""),
			wantErr: `line 9: context "dev" names no cluster: set its cluster to one of the clusters (dev)`, wantLine: 9},
		{name: "context's user missing", input: replace(t, "    user: dev-admin\n", "    user: root\n"),
			wantErr: `line 11: context "dev" names user "root", which is not among the users (dev-admin)`, wantLine: 11},
		{name: "cluster without server", input: replace(t, "    server: https://dev.example.com:6443\n", "    insecure-skip-tls-verify: true\n"),
			wantErr: `line 5: cluster "dev" has no server: set server to the API server's URL`, wantLine: 5},
		{name: "server without a scheme", input: replace(t, "https://dev.example.com:6443", "dev.example.com:6443"),
			wantErr: `line 6: cluster "dev" server is not an https:// or http:// URL`, wantLine: 6},
		{name: "server with another scheme", input: replace(t, "https://dev.example.com:6443", "ftp://dev.example.com"),
			wantErr: `cluster "dev" server is not an https:// or http:// URL`, wantLine: 6},
		{name: "server that does not parse", input: replace(t, "https://dev.example.com:6443", `"https://dev example.com:%zz"`),
			wantErr: `cluster "dev" server is not an https:// or http:// URL`, wantLine: 6},
		{name: "unquoted YAML 1.1 boolean as a name", input: replace(t, "    cluster: dev\n", "    cluster: yes\n"),
			wantErr: "line 10: contexts.context.cluster is a boolean but must be a string; quote it", wantLine: 10},
		{name: "list where a mapping belongs", input: replace(t, "  cluster:\n    server: https://dev.example.com:6443\n", "  cluster: [https://dev.example.com:6443]\n"),
			wantErr: "line 5: clusters.cluster is a list but must be a mapping", wantLine: 5},
		{name: "PEM text in a -data field", input: replace(t, "    token: dev-token-value\n", "    client-certificate-data: -----BEGIN CERTIFICATE-----\n"),
			wantErr: `line 16: client-certificate-data of user "dev-admin" is not valid base64`, wantLine: 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := []byte(tt.input)
			before := bytes.Clone(input)
			got, err := Validate(input, tt.maxBytes)
			if !bytes.Equal(input, before) {
				t.Errorf("Validate modified its input")
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if !reflect.DeepEqual(*got, *tt.want) {
					t.Errorf("Summary = %+v, want %+v", *got, *tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate succeeded with %+v, want error containing %q", *got, tt.wantErr)
			}
			if got != nil {
				t.Errorf("Validate returned a summary alongside an error")
			}
			var kerr *Error
			if !errors.As(err, &kerr) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if kerr.Line != tt.wantLine {
				t.Errorf("Line = %d, want %d (error %q)", kerr.Line, tt.wantLine, err)
			}
		})
	}
}
