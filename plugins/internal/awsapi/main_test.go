package awsapi

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

const (
	account = "123456789012"
	region  = "eu-north-1"
)

func TestMain(m *testing.M) {
	if os.Getenv(verifierChildEnv) != "" {
		os.Exit(runVerifierChild()) // see verifier_test.go
	}
	// The SDK reads the environment and shared files; tests set what they
	// need and nothing from this machine leaks in.
	for _, k := range []string{"AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SSM", "AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL_EKS", "AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2", "AWS_ENDPOINT_URL_SERVICE_QUOTAS",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"} {
		_ = os.Unsetenv(k)
	}
	_ = os.Setenv("AWS_CONFIG_FILE", os.DevNull)
	_ = os.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	_ = os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	os.Exit(m.Run())
}

// accessKey is the KubeOpera credential of p.
func accessKey(p fakeaws.Principal) sdk.Credentials {
	c := sdk.Credentials{"kind": KindAccessKey, "accessKeyId": p.AccessKeyID, "secretAccessKey": p.SecretAccessKey}
	if p.SessionToken != "" {
		c["sessionToken"] = p.SessionToken
	}
	return c
}

// withEnv points the SDK at the fakes for this test.
func withEnv(t *testing.T, s *fakeaws.Server) {
	for k, v := range s.Env() {
		t.Setenv(k, v)
	}
}

// newConfig builds the configuration through Config, with the SDK's standard
// retryer backing off at most 10ms so retried tests stay fast.
func newConfig(t *testing.T, creds sdk.Credentials) aws.Config {
	t.Helper()
	cfg, err := Config(context.Background(), creds, region)
	if err != nil {
		t.Fatalf("Config: %v", err)
	}
	cfg.Retryer = func() aws.Retryer {
		return retry.AddWithMaxBackoffDelay(retry.NewStandard(), 10*time.Millisecond)
	}
	return cfg
}

// assertNoSecret fails when text contains any secret part of p.
func assertNoSecret(t *testing.T, text string, p fakeaws.Principal) {
	t.Helper()
	for name, v := range map[string]string{"secret access key": p.SecretAccessKey, "session token": p.SessionToken} {
		if v != "" && strings.Contains(text, v) {
			t.Errorf("the %s appears in %q", name, text)
		}
	}
}

// assertInvalidCredentials fails unless err is sdk.InvalidInput on field.
func assertInvalidInput(t *testing.T, err error, field string) {
	t.Helper()
	fields := sdk.FieldErrors(err)
	if sdk.KindOf(err) != sdk.KindInvalidInput || len(fields) != 1 || fields[0].Field != field {
		t.Fatalf("error = %v (kind %q), want InvalidInput on %s", err, sdk.KindOf(err), field)
	}
}
