package awsapi

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// tokenURL decodes an EKS token back into its presigned URL.
func tokenURL(t *testing.T, tok string) *url.URL {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, tokenPrefix))
	if err != nil || !strings.HasPrefix(tok, tokenPrefix) {
		t.Fatalf("token is not %q + base64url: %v", tokenPrefix, err)
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestEKSTokenIsAPresignedRegionalGetCallerIdentity(t *testing.T) {
	s := fakeaws.Start(t) // keys only: no endpoint override, the URL names real STS
	alice := s.IAM.AddUser(account, "alice")
	signedAt := time.Now().UTC().Truncate(time.Second)
	for _, r := range []string{"eu-north-1", "us-east-1"} {
		t.Run(r, func(t *testing.T) {
			cfg, err := Config(context.Background(), accessKey(alice), r)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := eksToken(context.Background(), cfg, "prod", signedAt)
			if err != nil {
				t.Fatalf("eksToken: %v", err)
			}
			u := tokenURL(t, tok.Value)
			if u.Scheme != "https" || u.Host != "sts."+r+".amazonaws.com" || u.Path != "/" {
				t.Errorf("URL = %s://%s%s, want https://sts.%s.amazonaws.com/", u.Scheme, u.Host, u.Path, r)
			}
			q := u.Query()
			var keys []string
			for k := range q {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			want := map[string]string{
				"Action":              "GetCallerIdentity",
				"Version":             "2011-06-15",
				"X-Amz-Algorithm":     "AWS4-HMAC-SHA256",
				"X-Amz-Credential":    alice.AccessKeyID + "/" + signedAt.Format("20060102") + "/" + r + "/sts/aws4_request",
				"X-Amz-Date":          signedAt.Format("20060102T150405Z"),
				"X-Amz-Expires":       "60",
				"X-Amz-SignedHeaders": "host;x-k8s-aws-id",
				"X-Amz-Signature":     q.Get("X-Amz-Signature"),
			}
			if len(keys) != len(want) || len(q.Get("X-Amz-Signature")) != 64 {
				t.Errorf("query keys = %v, want exactly %d (the verifier's whitelist) and a 64-hex signature", keys, len(want))
			}
			for k, v := range want {
				if q.Get(k) != v {
					t.Errorf("%s = %q, want %q", k, q.Get(k), v)
				}
			}
			if !tok.Expiration.Equal(signedAt.Add(14 * time.Minute)) {
				t.Errorf("Expiration = %s, want signing time + 14m", tok.Expiration)
			}
			assertNoSecret(t, tok.Value, alice)
		})
	}

	before := time.Now()
	tok, err := EKSToken(context.Background(), newConfig(t, accessKey(alice)), "prod")
	if err != nil || tok.Expiration.Before(before.Add(14*time.Minute-time.Second)) || tok.Expiration.After(time.Now().Add(14*time.Minute)) {
		t.Errorf("EKSToken = expiring %s, %v; want now + 14m", tok.Expiration, err)
	}
}

// With AWS_ENDPOINT_URL_STS the token points at that endpoint; the fake STS
// checks the signature with the header the verifier sends, and refuses a
// URL signed more than 15 minutes ago (the verifier refuses those before
// calling STS, so only this test sees the fake's side).
func TestEKSTokenAgainstTheFakeSTS(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	alice := s.IAM.AddUser(account, "alice")
	cfg := newConfig(t, accessKey(alice))
	cases := []struct {
		name       string
		age        time.Duration
		clusterID  string
		wantStatus int
		want       string
	}{
		{"fresh", 0, "prod", http.StatusOK, "<Arn>" + alice.ARN + "</Arn>"},
		{"other cluster", 0, "staging", http.StatusForbidden, "<Code>SignatureDoesNotMatch</Code>"},
		{"16 minutes old", 16 * time.Minute, "prod", http.StatusForbidden, "Signature expired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := eksToken(context.Background(), cfg, "prod", time.Now().Add(-tc.age))
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodGet, tokenURL(t, tok.Value).String(), nil)
			req.Header.Set(clusterIDHeader, tc.clusterID)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(body), tc.want) {
				t.Errorf("status %d body %s; want %d with %q", resp.StatusCode, body, tc.wantStatus, tc.want)
			}
		})
	}
}

// Assumed-role credentials last 15 minutes by default (stscreds); a token
// signed late in a session must not outlive them.
func TestEKSTokenExpiresWithItsCredentials(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	base := s.IAM.AddUser(account, "host")
	t.Setenv("AWS_ACCESS_KEY_ID", base.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", base.SecretAccessKey)
	cfg := newConfig(t, sdk.Credentials{"kind": KindAssumeRole, "roleArn": s.IAM.AddRole(account, "deployer", "")})
	ctx := context.Background()
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil || !creds.CanExpire {
		t.Fatalf("role credentials = expiring %v, %v", creds.CanExpire, err)
	}

	late := creds.Expires.Add(-5 * time.Minute) // 14 minutes on would pass the credentials' end
	tok, err := eksToken(ctx, cfg, "prod", late)
	if err != nil {
		t.Fatal(err)
	}
	if !tok.Expiration.Equal(creds.Expires) {
		t.Errorf("Expiration = %s, want the credentials' expiry %s", tok.Expiration, creds.Expires)
	}
	if tokenURL(t, tok.Value).Query().Get("X-Amz-Security-Token") == "" {
		t.Error("a token signed with session credentials carries no X-Amz-Security-Token")
	}
	early, err := EKSToken(ctx, cfg, "prod")
	if err != nil || !early.Expiration.Before(creds.Expires) || early.Expiration.Before(time.Now().Add(13*time.Minute)) {
		t.Errorf("token signed now expires %s (%v), want now + 14m, before %s", early.Expiration, err, creds.Expires)
	}
}

// The kubeconfig parses, and client-go uses it to reach an HTTPS server
// whose certificate only the kubeconfig's CA vouches for, sending the token.
func TestEKSKubeconfigWorksWithClientGo(t *testing.T) {
	tok := Token{Value: "k8s-aws-v1.aHR0cHM6Ly9zdHMuZXUtbm9ydGgtMS5hbWF6b25hd3MuY29tLw", Expiration: time.Now().Add(time.Hour)}
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+tok.Value {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = fmt.Fprint(w, `{"major":"1","minor":"31","gitVersion":"v1.31.4-eks-2d5f260"}`)
	}))
	t.Cleanup(api.Close)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw})
	caData := []byte(base64.StdEncoding.EncodeToString(caPEM))

	kc, err := EKSKubeconfig("prod", api.URL, caData, tok)
	if err != nil {
		t.Fatalf("EKSKubeconfig: %v", err)
	}
	parsed, err := clientcmd.Load(kc)
	if err != nil {
		t.Fatalf("clientcmd.Load: %v", err)
	}
	cl, user := parsed.Clusters["prod"], parsed.AuthInfos["prod"]
	if parsed.CurrentContext != "prod" || cl == nil || user == nil || cl.Server != api.URL ||
		string(cl.CertificateAuthorityData) != string(caPEM) || user.Token != tok.Value || user.Exec != nil {
		t.Fatalf("kubeconfig = %+v", parsed)
	}
	rc, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := kubernetes.NewForConfigOrDie(rc).Discovery().ServerVersion()
	if err != nil || v.GitVersion != "v1.31.4-eks-2d5f260" {
		t.Fatalf("ServerVersion through the kubeconfig = %v, %v", v, err)
	}
}

func TestEKSKubeconfigRefusesBadInputs(t *testing.T) {
	good := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}))
	tok := Token{Value: "k8s-aws-v1.secret-looking-token"}
	cases := []struct {
		name, endpoint, ca string
		tok                Token
		want               string
	}{
		{"http endpoint", "http://x.eks.amazonaws.com", good, tok, "not an https URL"},
		{"CA not base64", "https://x.eks.amazonaws.com", "-----BEGIN CERTIFICATE-----", tok, "not base64"},
		{"CA not PEM", "https://x.eks.amazonaws.com", base64.StdEncoding.EncodeToString([]byte("hello")), tok, "PEM certificate"},
		{"no token", "https://x.eks.amazonaws.com", good, Token{}, "token is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := EKSKubeconfig("prod", tc.endpoint, []byte(tc.ca), tc.tok)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), tok.Value) {
				t.Errorf("error carries the token: %v", err)
			}
		})
	}
}
