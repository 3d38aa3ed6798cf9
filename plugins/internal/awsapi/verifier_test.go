package awsapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/aws-iam-authenticator/pkg/token"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
)

// This file proves that EKS would accept our tokens: aws-iam-authenticator's
// own verifier (what EKS runs) checks them and calls STS with them. The
// verifier only calls real STS hostnames over HTTPS with its own
// http.Client, so it runs in a child process (this test binary again)
// whose HTTPS_PROXY is a local CONNECT proxy that answers for
// sts.<region>.amazonaws.com itself, with a certificate from a test CA that
// the child trusts alone (SSL_CERT_FILE; SSL_CERT_DIR empty), and hands the
// request to the fake STS. The fake STS recomputes the signature with the
// signing key's secret and the x-k8s-aws-id header the verifier sends.

const verifierChildEnv = "AWSAPI_VERIFIER_CHILD"

type verifyRequest struct {
	ClusterID string
	Region    string
	Tokens    map[string]string
}

type verifyResult struct {
	ARN, AccountID, SessionName, Err string
}

// runVerifierChild runs in the child: it verifies each token and prints the
// results as JSON.
func runVerifierChild() int {
	data, err := os.ReadFile(os.Getenv(verifierChildEnv))
	if err != nil {
		return 2
	}
	var req verifyRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return 2
	}
	v := token.NewVerifier(req.ClusterID, "aws", req.Region)
	out := map[string]verifyResult{}
	for name, tok := range req.Tokens {
		id, err := v.Verify(tok)
		if err != nil {
			out[name] = verifyResult{Err: err.Error()}
			continue
		}
		out[name] = verifyResult{ARN: id.ARN, AccountID: id.AccountID, SessionName: id.SessionName}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 2
	}
	return 0
}

// verifyInChild runs the verifier for clusterID on tokens behind proxy.
func verifyInChild(t *testing.T, proxy *fakeaws.Interceptor, clusterID string, tokens map[string]string) map[string]verifyResult {
	t.Helper()
	dir := t.TempDir()
	reqFile := filepath.Join(dir, "request.json")
	data, _ := json.Marshal(verifyRequest{ClusterID: clusterID, Region: region, Tokens: tokens})
	if err := os.WriteFile(reqFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	emptyCertDir := filepath.Join(dir, "certs")
	if err := os.Mkdir(emptyCertDir, 0o700); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); strings.ToUpper(k) {
		case "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR":
			continue
		}
		env = append(env, kv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(env, "HTTPS_PROXY="+proxy.URL, "SSL_CERT_FILE="+proxy.CAFile,
		"SSL_CERT_DIR="+emptyCertDir, verifierChildEnv+"="+reqFile)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("verifier child: %v\n%s", err, out)
	}
	var res map[string]verifyResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("verifier child printed %q: %v", out, err)
	}
	return res
}

// retouch decodes tok, lets edit change its URL, and encodes it again.
func retouch(t *testing.T, tok string, edit func(string) string) string {
	raw := tokenURL(t, tok).String()
	edited := edit(raw)
	if edited == raw {
		t.Fatal("retouch changed nothing")
	}
	return tokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(edited))
}

type verifierCase struct {
	name, token string
	wantARN     string   // when accepted
	wantErr     []string // when refused
}

// verifierCases mints tokens for the cluster "prod" (and one for another),
// for the real STS hostname: Config without an endpoint override.
func verifierCases(t *testing.T, s *fakeaws.Server) []verifierCase {
	alice := s.IAM.AddUser(account, "alice")
	role := assumed(t, s, alice)
	stranger := fakeaws.Principal{AccessKeyID: "AKIAZZZZZZZZZZZZZZZZ", SecretAccessKey: alice.SecretAccessKey}
	now := time.Now()
	mint := func(p fakeaws.Principal, cluster string, at time.Time) string {
		cfg, err := Config(context.Background(), accessKey(p), region)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := eksToken(context.Background(), cfg, cluster, at)
		if err != nil {
			t.Fatal(err)
		}
		return tok.Value
	}
	fresh := mint(alice, "prod", now)
	date := "X-Amz-Date=" + now.UTC().Format("20060102T150405Z")
	refused := []string{"got 403", "SignatureDoesNotMatch"}
	return []verifierCase{
		{"access key", fresh, alice.ARN, nil},
		{"assumed-role session", mint(role, "prod", now), role.ARN, nil},
		{"ten minutes old (past X-Amz-Expires=60, within STS's 15 minutes)", mint(alice, "prod", now.Add(-10*time.Minute)), alice.ARN, nil},
		{"another cluster's token", mint(alice, "staging", now), "", refused},
		{"expired", mint(alice, "prod", now.Add(-16*time.Minute)), "", []string{"X-Amz-Date parameter is expired"}},
		{"tampered signature", retouch(t, fresh, func(u string) string {
			return u[:len(u)-1] + map[bool]string{true: "0", false: "1"}[u[len(u)-1] != '0']
		}), "", refused},
		{"tampered date", retouch(t, fresh, func(u string) string {
			return strings.Replace(u, date, "X-Amz-Date="+now.Add(-time.Second).UTC().Format("20060102T150405Z"), 1)
		}), "", refused},
		{"unknown key", mint(stranger, "prod", now), "", []string{"got 403", "InvalidClientTokenId"}},
	}
}

func TestAWSIAMAuthenticatorVerifierAcceptsOurTokens(t *testing.T) {
	s := fakeaws.Start(t)
	host := "sts." + region + ".amazonaws.com"
	proxy := fakeaws.StartInterceptor(t, s.STS, host)
	cases := verifierCases(t, s)
	tokens := map[string]string{}
	for _, tc := range cases {
		tokens[tc.name] = tc.token
	}
	results := verifyInChild(t, proxy, "prod", tokens)

	for _, tc := range cases {
		got, ok := results[tc.name]
		switch {
		case !ok:
			t.Errorf("%s: no result", tc.name)
		case tc.wantErr == nil && (got.Err != "" || got.ARN != tc.wantARN || got.AccountID != account):
			t.Errorf("%s: verifier said %+v, want %s in %s", tc.name, got, tc.wantARN, account)
		case tc.wantErr != nil && got.Err == "":
			t.Errorf("%s: verifier accepted it as %s", tc.name, got.ARN)
		}
		for _, w := range tc.wantErr {
			if !strings.Contains(got.Err, w) {
				t.Errorf("%s: verifier error %q lacks %q", tc.name, got.Err, w)
			}
		}
	}
	if got := results["assumed-role session"].SessionName; got != SessionName {
		t.Errorf("assumed-role session name = %q, want %q", got, SessionName)
	}
	// Every token but the expired one (refused before any call) reached
	// the fake STS as the verifier's GET for the real hostname.
	seen := s.STS.Seen()[1:] // the first is the AssumeRole POST
	if len(seen) != len(cases)-1 {
		t.Fatalf("fake STS saw %d verifier requests, want %d: %+v", len(seen), len(cases)-1, seen)
	}
	for _, r := range seen {
		if r.Method != http.MethodGet || r.Host != host || r.ClusterID != "prod" || r.Action != "GetCallerIdentity" {
			t.Errorf("fake STS saw %+v, want GET GetCallerIdentity for %s with x-k8s-aws-id prod", r, host)
		}
	}
}
