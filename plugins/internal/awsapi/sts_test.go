package awsapi

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// assumed returns temporary credentials for a fresh role, from the fake STS.
func assumed(t *testing.T, s *fakeaws.Server, base fakeaws.Principal) fakeaws.Principal {
	t.Helper()
	roleARN := s.IAM.AddRole(account, "deployer", "")
	c := sts.New(sts.Options{Region: region, BaseEndpoint: aws.String(s.STSURL),
		Credentials: credentials.NewStaticCredentialsProvider(base.AccessKeyID, base.SecretAccessKey, "")})
	out, err := c.AssumeRole(context.Background(), &sts.AssumeRoleInput{RoleArn: &roleARN, RoleSessionName: aws.String(SessionName)})
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	return fakeaws.Principal{
		AccessKeyID: aws.ToString(out.Credentials.AccessKeyId), SecretAccessKey: aws.ToString(out.Credentials.SecretAccessKey),
		SessionToken: aws.ToString(out.Credentials.SessionToken), ARN: aws.ToString(out.AssumedRoleUser.Arn),
	}
}

func TestCallerIdentity(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	alice := s.IAM.AddUser(account, "alice")
	stranger := alice
	stranger.AccessKeyID = "AKIAZZZZZZZZZZZZZZZZ"
	temp := assumed(t, s, alice)
	// A wrong secret with a session token: the fake, like AWS, answers with
	// the canonical request, session token included.
	tempWrongSecret := temp
	tempWrongSecret.SecretAccessKey = strings.Repeat("w", 40)
	expired := assumed(t, s, alice)
	s.IAM.Expire(expired.AccessKeyID)

	cases := []struct {
		name     string
		as       fakeaws.Principal
		wantARN  string
		wantCode string // in the message of the InvalidInput on credentials
	}{
		{"access key", alice, alice.ARN, ""},
		{"session credentials", temp, temp.ARN, ""},
		{"unknown access key", stranger, "", "InvalidClientTokenId"},
		{"wrong secret", tempWrongSecret, "", "SignatureDoesNotMatch"},
		{"expired session", expired, "", "ExpiredToken"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id, err := CallerIdentity(context.Background(), newConfig(t, accessKey(tc.as)))
			if tc.wantCode == "" {
				if err != nil || id.ARN != tc.wantARN || id.Account != account {
					t.Fatalf("CallerIdentity = %+v, %v; want %s in %s", id, err, tc.wantARN, account)
				}
				return
			}
			assertInvalidInput(t, err, "credentials")
			msg := err.Error()
			if !strings.Contains(msg, tc.wantCode) || !strings.Contains(msg, "update the stored AWS credential") {
				t.Errorf("message %q does not name %s and say to update the credential", msg, tc.wantCode)
			}
			assertNoSecret(t, msg, tc.as)
		})
	}
}

func TestCallerIdentityUnreachableIsRetryable(t *testing.T) {
	closed := httptest.NewServer(nil)
	closed.Close()
	t.Setenv("AWS_ENDPOINT_URL_STS", closed.URL)
	s := fakeaws.Start(t)
	alice := s.IAM.AddUser(account, "alice")
	_, err := CallerIdentity(context.Background(), newConfig(t, accessKey(alice)))
	if sdk.KindOf(err) != sdk.KindUnavailable || !sdk.IsRetryable(err) {
		t.Fatalf("error = %v (kind %q), want Unavailable", err, sdk.KindOf(err))
	}
	assertNoSecret(t, err.Error(), alice)
}
