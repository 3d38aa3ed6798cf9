package fakeaws

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

func stsClient(s *Server, p Principal) *sts.Client {
	cfg := aws.Config{
		Region:      "eu-north-1",
		Credentials: credentials.NewStaticCredentialsProvider(p.AccessKeyID, p.SecretAccessKey, p.SessionToken),
	}
	return sts.NewFromConfig(cfg, func(o *sts.Options) {
		o.BaseEndpoint = aws.String(s.STSURL)
		o.Retryer = aws.NopRetryer{}
	})
}

func TestSTSGetCallerIdentity(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	stranger := alice
	stranger.AccessKeyID = "AKIAAAAAAAAAAAAAAAAA"
	wrongSecret := alice
	wrongSecret.SecretAccessKey = strings.Repeat("x", 40)
	cases := []struct {
		name     string
		as       Principal
		wantCode string
	}{
		{"known key", alice, ""},
		{"unknown key", stranger, "InvalidClientTokenId"},
		{"wrong secret", wrongSecret, "SignatureDoesNotMatch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := stsClient(s, tc.as).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
			if tc.wantCode != "" {
				if got := apiCode(t, err); got != tc.wantCode {
					t.Errorf("code = %q, want %q", got, tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("GetCallerIdentity: %v", err)
			}
			if aws.ToString(out.Arn) != alice.ARN || aws.ToString(out.Account) != account || aws.ToString(out.UserId) != alice.UserID {
				t.Errorf("identity = %s %s %s, want %s %s %s", aws.ToString(out.Arn), aws.ToString(out.Account),
					aws.ToString(out.UserId), alice.ARN, account, alice.UserID)
			}
		})
	}
}

func TestSTSAssumeRoleCredentialsWorkAndExpire(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	roleARN := s.IAM.AddRole("210987654321", "deployer", "ext-1")
	ctx := context.Background()
	c := stsClient(s, alice)

	_, err := c.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: &roleARN, RoleSessionName: aws.String("s"), ExternalId: aws.String("wrong")})
	if got := apiCode(t, err); got != "AccessDenied" {
		t.Errorf("wrong external ID: code %q, want AccessDenied", got)
	}
	out, err := c.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: &roleARN, RoleSessionName: aws.String("kubeopera"), ExternalId: aws.String("ext-1")})
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	temp := Principal{AccessKeyID: aws.ToString(out.Credentials.AccessKeyId),
		SecretAccessKey: aws.ToString(out.Credentials.SecretAccessKey), SessionToken: aws.ToString(out.Credentials.SessionToken)}
	id, err := stsClient(s, temp).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if want := "arn:aws:sts::210987654321:assumed-role/deployer/kubeopera"; err != nil || aws.ToString(id.Arn) != want {
		t.Fatalf("GetCallerIdentity with role credentials = %v, %v; want %s", id, err, want)
	}
	s.SSM.Put("/p", String, "v")
	if _, err := ssmClient(s, temp).GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/p")}); err != nil {
		t.Errorf("SSM with role credentials: %v", err)
	}
	noToken := temp
	noToken.SessionToken = ""
	if _, err := stsClient(s, noToken).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); apiCode(t, err) != "InvalidClientTokenId" {
		t.Errorf("role credentials without their session token: %v, want InvalidClientTokenId", err)
	}
	s.IAM.Expire(temp.AccessKeyID)
	if _, err := stsClient(s, temp).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); apiCode(t, err) != "ExpiredToken" {
		t.Errorf("expired role credentials: %v, want ExpiredToken", err)
	}
	if _, err := ssmClient(s, temp).GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/p")}); apiCode(t, err) != "ExpiredTokenException" {
		t.Errorf("expired role credentials on SSM: %v, want ExpiredTokenException", err)
	}
}

// presign signs a GetCallerIdentity GET at signedAt, the way EKS tokens are
// made, with the x-k8s-aws-id header (unless clusterID is empty).
func presign(t *testing.T, s *Server, p Principal, signedAt time.Time, clusterID string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.STSURL+"/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Expires=60", nil)
	if clusterID != "" {
		req.Header.Set("x-k8s-aws-id", clusterID)
	}
	u, _, err := v4.NewSigner().PresignHTTP(context.Background(), awsCredentials(p), req, emptyPayloadHash, "sts", "eu-north-1", signedAt)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func get(t *testing.T, rawURL, clusterID, accept string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, rawURL, nil)
	req.Header.Set("x-k8s-aws-id", clusterID)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestSTSPresignedGetCallerIdentity(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	now := time.Now()
	fresh := presign(t, s, alice, now, "c1")
	tampered := strings.Replace(fresh, "X-Amz-Date="+now.UTC().Format(amzDateFormat),
		"X-Amz-Date="+now.Add(-time.Second).UTC().Format(amzDateFormat), 1)
	noExpires := strings.Replace(fresh, "X-Amz-Expires=60&", "", 1)

	cases := []struct {
		name, url, clusterID string
		wantStatus           int
		wantCode             string
	}{
		{"fresh", fresh, "c1", http.StatusOK, ""},
		{"past X-Amz-Expires but within STS's 15 minutes", presign(t, s, alice, now.Add(-10*time.Minute), "c1"), "c1", http.StatusOK, ""},
		{"older than 15 minutes", presign(t, s, alice, now.Add(-16*time.Minute), "c1"), "c1", http.StatusForbidden, "SignatureDoesNotMatch"},
		{"signed header differs", fresh, "c2", http.StatusForbidden, "SignatureDoesNotMatch"},
		{"signed date changed", tampered, "c1", http.StatusForbidden, "SignatureDoesNotMatch"},
		{"no X-Amz-Expires", noExpires, "c1", http.StatusBadRequest, "IncompleteSignature"},
		{"x-k8s-aws-id not signed", presign(t, s, alice, now, ""), "c1", http.StatusBadRequest, "IncompleteSignature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := get(t, tc.url, tc.clusterID, "")
			var doc struct {
				Arn  string `xml:"GetCallerIdentityResult>Arn"`
				Code string `xml:"Error>Code"`
			}
			if err := xml.Unmarshal([]byte(body), &doc); err != nil {
				t.Fatalf("body is not XML: %v\n%s", err, body)
			}
			if status != tc.wantStatus || doc.Code != tc.wantCode {
				t.Fatalf("status %d code %q, want %d %q\n%s", status, doc.Code, tc.wantStatus, tc.wantCode, body)
			}
			if tc.wantCode == "" && doc.Arn != alice.ARN {
				t.Errorf("Arn = %q, want %q", doc.Arn, alice.ARN)
			}
		})
	}
	if seen := s.STS.Seen(); len(seen) != len(cases) || seen[0].Method != http.MethodGet || seen[0].ClusterID != "c1" {
		t.Errorf("Seen = %+v, want %d GETs, the first for c1", seen, len(cases))
	}
}

// aws-iam-authenticator's verifier asks for JSON; STS answers JSON then.
func TestSTSAnswersJSONWhenAsked(t *testing.T) {
	s := Start(t)
	alice := s.IAM.AddUser(account, "alice")
	status, body := get(t, presign(t, s, alice, time.Now(), "c1"), "c1", "application/json")
	var doc struct {
		R struct {
			Result struct{ Account, Arn, UserId string } `json:"GetCallerIdentityResult"`
		} `json:"GetCallerIdentityResponse"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || status != http.StatusOK {
		t.Fatalf("status %d, body %s, err %v", status, body, err)
	}
	if doc.R.Result.Arn != alice.ARN || doc.R.Result.Account != account || doc.R.Result.UserId != alice.UserID {
		t.Errorf("JSON identity = %+v, want %s", doc.R.Result, alice.ARN)
	}
	status, body = get(t, presign(t, s, alice, time.Now(), "c1"), "c2", "application/json")
	var e struct{ Error struct{ Code string } }
	if err := json.Unmarshal([]byte(body), &e); err != nil || status != http.StatusForbidden || e.Error.Code != "SignatureDoesNotMatch" {
		t.Errorf("mismatched cluster: status %d body %s", status, body)
	}
}

func TestSTSRefusesUnsignedRequests(t *testing.T) {
	s := Start(t)
	resp, err := http.PostForm(s.STSURL, url.Values{"Action": {"GetCallerIdentity"}, "Version": {"2011-06-15"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "<Code>MissingAuthenticationToken</Code>") {
		t.Errorf("unsigned POST: %d %s", resp.StatusCode, body)
	}
}
