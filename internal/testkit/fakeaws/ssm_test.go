package fakeaws

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"
)

const account = "123456789012"

// ssmClient is the real SDK client signed with p's key, without retries so
// each call is one request.
func ssmClient(s *Server, p Principal) *ssm.Client {
	cfg := aws.Config{
		Region:      "eu-north-1",
		Credentials: credentials.NewStaticCredentialsProvider(p.AccessKeyID, p.SecretAccessKey, p.SessionToken),
	}
	return ssm.NewFromConfig(cfg, func(o *ssm.Options) {
		o.BaseEndpoint = aws.String(s.SSMURL)
		o.Retryer = aws.NopRetryer{}
	})
}

func apiCode(t *testing.T, err error) string {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error is not an AWS API error: %v", err)
	}
	return ae.ErrorCode()
}

func TestSSMGetParameterAnswersWhatWasPut(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	s.SSM.Put("/kubeopera/c1/plain", String, "hello")
	s.SSM.Put("/kubeopera/c1/kubeconfig", SecureString, "apiVersion: v1")
	c := ssmClient(s, alice)
	ctx := context.Background()

	cases := []struct {
		name, param string
		decrypt     bool
		want        string
	}{
		{"String ignores WithDecryption", "/kubeopera/c1/plain", false, "hello"},
		{"SecureString decrypted", "/kubeopera/c1/kubeconfig", true, "apiVersion: v1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.GetParameter(ctx, &ssm.GetParameterInput{Name: &tc.param, WithDecryption: &tc.decrypt})
			if err != nil {
				t.Fatalf("GetParameter: %v", err)
			}
			if got := aws.ToString(out.Parameter.Value); got != tc.want {
				t.Errorf("Value = %q, want %q", got, tc.want)
			}
			wantARN := "arn:aws:ssm:eu-north-1:" + account + ":parameter" + tc.param
			if got := aws.ToString(out.Parameter.ARN); got != wantARN {
				t.Errorf("ARN = %q, want %q", got, wantARN)
			}
			if out.Parameter.Version != 1 || out.Parameter.LastModifiedDate == nil {
				t.Errorf("Version = %d, LastModifiedDate = %v; want 1 and a time", out.Parameter.Version, out.Parameter.LastModifiedDate)
			}
		})
	}
}

func TestSSMSecureStringWithoutDecryptionIsCiphertext(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	s.SSM.Put("/secret", SecureString, "the plaintext")
	out, err := ssmClient(s, alice).GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String("/secret")})
	if err != nil {
		t.Fatalf("GetParameter: %v", err)
	}
	v := aws.ToString(out.Parameter.Value)
	blob, err := base64.StdEncoding.DecodeString(v)
	if err != nil || !strings.HasPrefix(v, "AQICAH") {
		t.Fatalf("Value %q is not a base64 KMS-style ciphertext blob (err %v)", v, err)
	}
	if bytes.Contains(blob, []byte("the plaintext")) || out.Parameter.Type != types.ParameterTypeSecureString {
		t.Errorf("ciphertext carries the plaintext, or Type = %q", out.Parameter.Type)
	}
}

func TestSSMErrorsHaveAWSCodes(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	stranger := alice
	stranger.AccessKeyID = "AKIAAAAAAAAAAAAAAAAA"
	wrongSecret := alice
	wrongSecret.SecretAccessKey = strings.Repeat("x", 40)
	ctx := context.Background()

	s.SSM.Put("/p", String, "v")
	cases := []struct {
		name, param string
		as          Principal
		throttles   int
		wantCode    string
	}{
		{"missing parameter", "/absent", alice, 0, "ParameterNotFound"},
		{"unknown access key", "/p", stranger, 0, "UnrecognizedClientException"},
		{"wrong secret", "/p", wrongSecret, 0, "InvalidSignatureException"},
		{"throttled", "/p", alice, 1, "ThrottlingException"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.SSM.Throttle(tc.throttles)
			_, err := ssmClient(s, tc.as).GetParameter(ctx, &ssm.GetParameterInput{Name: &tc.param})
			if got := apiCode(t, err); got != tc.wantCode {
				t.Errorf("code = %q, want %q (%v)", got, tc.wantCode, err)
			}
		})
	}
}

func TestSSMPutLaterAppearsAfterKCalls(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	s.SSM.PutLater("/later", SecureString, "v", Appear{AfterCalls: 2})
	c := ssmClient(s, alice)
	for call := 1; call <= 3; call++ {
		_, err := c.GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String("/later")})
		if found := err == nil; found != (call == 3) {
			t.Fatalf("call %d: found = %v (err %v), want found only on call 3", call, found, err)
		}
	}
	if got := s.SSM.Calls("/later"); got != 3 {
		t.Errorf("Calls = %d, want 3", got)
	}
}

func TestSSMPutParameterRules(t *testing.T) {
	s := Start(t)
	c := ssmClient(s, s.IAM.AddUser(account, "alice"))
	ctx := context.Background()
	put := func(value string, overwrite bool, tier types.ParameterTier) (*ssm.PutParameterOutput, error) {
		return c.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/kc"), Value: &value,
			Type: types.ParameterTypeSecureString, Overwrite: &overwrite, Tier: tier})
	}
	if out, err := put("v1", false, ""); err != nil || out.Version != 1 || out.Tier != types.ParameterTierStandard {
		t.Fatalf("first put = %+v, %v; want version 1, Standard", out, err)
	}
	if _, err := put("v2", false, ""); apiCode(t, err) != "ParameterAlreadyExists" {
		t.Errorf("put without overwrite: %v, want ParameterAlreadyExists", err)
	}
	big := strings.Repeat("k", 5000) // a kubeconfig with embedded certificates is about this size
	if _, err := put(big, true, ""); apiCode(t, err) != "ValidationException" {
		t.Errorf("5000 characters in Standard tier: %v, want ValidationException", err)
	}
	out, err := put(big, true, types.ParameterTierIntelligentTiering)
	if err != nil || out.Version != 2 || out.Tier != types.ParameterTierAdvanced {
		t.Fatalf("Intelligent-Tiering put = %+v, %v; want version 2, Advanced", out, err)
	}
	if p, _ := s.SSM.Get("/kc"); p.Value != big {
		t.Errorf("stored value has %d characters, want %d", len(p.Value), len(big))
	}
}

// A request whose body changed after signing is refused: the fake hashes
// the body it received.
func TestSSMRefusesABodyChangedAfterSigning(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	s.SSM.Put("/a", String, "a")
	send := func(signed, sent string) int {
		req, _ := http.NewRequest(http.MethodPost, s.SSMURL+"/", strings.NewReader(sent))
		req.Header.Set("Content-Type", "application/x-amz-json-1.1")
		req.Header.Set("X-Amz-Target", "AmazonSSM.GetParameter")
		err := v4.NewSigner().SignHTTP(context.Background(), awsCredentials(alice), req, sha256Hex(signed), "ssm", "eu-north-1", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if got := send(`{"Name":"/a"}`, `{"Name":"/a"}`); got != http.StatusOK {
		t.Fatalf("untouched request: status %d, want 200", got)
	}
	if got := send(`{"Name":"/a"}`, `{"Name":"/b"}`); got != http.StatusBadRequest {
		t.Errorf("changed body: status %d, want 400", got)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
