package kubeconfig

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	secretToken = "eyJhbGciOiJSUzI1NiJ9.SECRET-TOKEN-PAYLOAD.sig"
	secretKey   = "-----BEGIN EC PRIVATE KEY-----\nSECRET-KEY-BYTES\n-----END EC PRIVATE KEY-----\n"
	secretPass  = "hunter2-SECRET-PASSWORD"
)

var secretKeyData = base64.StdEncoding.EncodeToString([]byte(secretKey))

// withSecrets is a kubeconfig carrying a token, a client key and a password;
// each case breaks it in a different place.
var withSecrets = `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://prod.example.com
contexts:
- name: prod
  context: {cluster: prod, user: admin}
current-context: prod
users:
- name: admin
  user:
    token: ` + secretToken + `
    client-key-data: ` + secretKeyData + `
- name: basic
  user:
    username: admin
    password: ` + secretPass + `
`

func TestErrorsNeverContainCredentials(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(withSecrets, old) {
			t.Fatalf("fixture does not contain %q", old)
		}
		return strings.Replace(withSecrets, old, new, 1)
	}
	tests := []struct {
		name    string
		input   string
		wantErr string
	}{
		{"current-context missing", edit("current-context: prod", "current-context: staging"), "not among the contexts"},
		{"user missing", edit("user: admin}", "user: root}"), `names user "root"`},
		{"token pasted as the server", edit("https://prod.example.com", secretToken), "is not an https:// or http:// URL"},
		{"token pasted as a URL-looking server", edit("https://prod.example.com", "ftp://"+secretPass+"@x"), "is not an https:// or http:// URL"},
		{"token is a list", edit("token: "+secretToken, "token: ["+secretToken+"]"), "users.user.token is a list but must be a string"},
		{"password is a mapping", edit("password: "+secretPass, "password: {p: "+secretPass+"}"), "users.user.password is a mapping"},
		{"client-key-data is PEM, not base64", edit(secretKeyData, strings.ReplaceAll(strings.TrimSpace(secretKey), "\n", " ")), "client-key-data of user \"admin\" is not valid base64"},
		{"YAML syntax error after the secrets", withSecrets + "  bad: [\n", "kubeconfig: line"},
		{"YAML syntax error inside a token", edit("token: "+secretToken, "token: "+secretToken+": x"), "mapping values are not allowed"},
		{"token pasted as the kind", edit("kind: Config", "kind: "+secretToken), "kind is an unexpected value; a kubeconfig has kind: Config"},
		{"password pasted as the apiVersion", edit("apiVersion: v1", "apiVersion: "+secretPass), "apiVersion is an unexpected value"},
		{"only a token was pasted", secretToken, "the top level is a single value"},
	}
	secrets := []string{secretToken, secretKeyData, secretPass, "SECRET-KEY-BYTES", "SECRET-TOKEN-PAYLOAD"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Validate([]byte(tt.input), 0)
			if err == nil {
				t.Fatalf("Validate succeeded with %+v, want an error containing %q", *got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			for _, s := range secrets {
				if part := leaked(err.Error(), s); part != "" {
					t.Errorf("error %q contains %q from credential %q", err, part, s)
				}
			}
		})
	}
}

// leaked returns a 10-character piece of secret found in msg, or "", so a
// truncated echo of a credential counts as a leak too.
func leaked(msg, secret string) string {
	const window = 10
	for i := 0; i+window <= len(secret); i++ {
		if part := secret[i : i+window]; strings.Contains(msg, part) {
			return part
		}
	}
	return ""
}

func TestSummaryNeverContainsCredentials(t *testing.T) {
	input := strings.Replace(withSecrets, "https://prod.example.com", "https://admin:"+secretPass+"@prod.example.com:6443", 1)
	got, err := Validate([]byte(input), 0)
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	want := Summary{CurrentContext: "prod", Cluster: "prod", Server: "https://prod.example.com:6443", User: "admin", Contexts: 1,
		Unsafe: []string{`cluster "prod" has user information in its server URL: put credentials in the user, not the URL`}}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("Summary = %+v, want %+v", *got, want)
	}
	all := fmt.Sprintf("%+v", *got)
	for _, s := range []string{secretToken, secretKeyData, secretPass} {
		if part := leaked(all, s); part != "" {
			t.Errorf("Summary %s contains %q from credential %q", all, part, s)
		}
	}
}

func TestRedactRemovesUserValues(t *testing.T) {
	root, err := parseYAML([]byte(withSecrets))
	if err != nil {
		t.Fatal(err)
	}
	msg := "decoder said " + secretToken + " and " + secretPass + " and " + secretKeyData + " for admin"
	got := redact(msg, root)
	want := "decoder said [redacted] and [redacted] and [redacted] for admin"
	if got != want {
		t.Errorf("redact = %q, want %q", got, want)
	}
}

func TestAliasBombIsRejectedQuickly(t *testing.T) {
	// Each level doubles: expanded, this is 2^30 strings, but the text is
	// small enough to pass the size check.
	var b strings.Builder
	b.WriteString("a0: &a0 [\"" + strings.Repeat("x", 16) + "\"]\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d]\n", i, i, i-1, i-1)
	}
	b.WriteString("current-context: [*a30]\n")
	done := make(chan error, 1)
	go func() {
		_, err := Validate([]byte(b.String()), 0)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Validate accepted an alias bomb")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Validate did not return within 10s on an alias bomb")
	}
}
