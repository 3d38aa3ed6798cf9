package awsapi

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

func TestConfigNamesMissingFieldsWithoutValues(t *testing.T) {
	const keyID = "AKIAIOSFODNN7EXAMPLE"
	cases := []struct {
		name   string
		creds  sdk.Credentials
		region string
		want   []string
	}{
		{"no region", sdk.Credentials{"kind": KindAccessKey}, "", []string{"inputs.region"}},
		{"no kind", sdk.Credentials{"accessKeyId": keyID}, region, []string{"credentials.kind"}},
		{"unknown kind", sdk.Credentials{"kind": "password"}, region, []string{"credentials.kind"}},
		{"access key without secret", sdk.Credentials{"kind": KindAccessKey, "accessKeyId": keyID}, region, []string{"credentials.secretAccessKey"}},
		{"access key without anything", sdk.Credentials{"kind": KindAccessKey}, region, []string{"credentials.accessKeyId", "credentials.secretAccessKey"}},
		{"role without ARN", sdk.Credentials{"kind": KindAssumeRole, "externalId": "x"}, region, []string{"credentials.roleArn"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Config(context.Background(), tc.creds, tc.region)
			var got []string
			for _, f := range sdk.FieldErrors(err) {
				got = append(got, f.Field)
			}
			if sdk.KindOf(err) != sdk.KindInvalidInput || strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("error %v names %v, want InvalidInput on %v", err, got, tc.want)
			}
			if strings.Contains(err.Error(), keyID) {
				t.Errorf("error repeats the access key ID: %v", err)
			}
		})
	}
}

// AWS_ENDPOINT_URL_<SERVICE> and AWS_ENDPOINT_URL reach the SDK clients
// through Config; the service-specific variable wins.
func TestConfigHonoursEndpointEnvironment(t *testing.T) {
	s := fakeaws.Start(t)
	alice := s.IAM.AddUser(account, "alice")
	s.SSM.Put("/p", fakeaws.String, "v")
	ctx := context.Background()

	t.Run("per-service variables", func(t *testing.T) {
		withEnv(t, s)
		cfg := newConfig(t, accessKey(alice))
		if id, err := CallerIdentity(ctx, cfg); err != nil || id.ARN != alice.ARN {
			t.Fatalf("CallerIdentity = %+v, %v; want %s", id, err, alice.ARN)
		}
		out, err := ssm.NewFromConfig(cfg).GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/p")})
		if err != nil || aws.ToString(out.Parameter.Value) != "v" {
			t.Fatalf("GetParameter = %v, %v", out, err)
		}
	})
	t.Run("global variable, overridden per service", func(t *testing.T) {
		t.Setenv("AWS_ENDPOINT_URL", s.STSURL)
		cfg := newConfig(t, accessKey(alice))
		if _, err := CallerIdentity(ctx, cfg); err != nil {
			t.Fatalf("CallerIdentity through AWS_ENDPOINT_URL: %v", err)
		}
		t.Setenv("AWS_ENDPOINT_URL_SSM", s.SSMURL)
		cfg = newConfig(t, accessKey(alice))
		if _, err := ssm.NewFromConfig(cfg).GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/p")}); err != nil {
			t.Fatalf("GetParameter through AWS_ENDPOINT_URL_SSM: %v", err)
		}
	})
	seen := s.STS.Seen()
	if len(seen) != 2 || seen[0].Method != http.MethodPost || seen[1].Code != "" {
		t.Errorf("fake STS saw %+v, want two answered POSTs", seen)
	}
	if got := s.SSM.Calls("/p"); got != 2 {
		t.Errorf("fake SSM answered %d reads, want 2", got)
	}
}

// assume_role takes its base credentials from the environment, assumes the
// role through STS with the external ID, and signs with the role's keys.
func TestConfigAssumesRoleWithEnvironmentCredentials(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	base := s.IAM.AddUser(account, "kubeopera-host")
	t.Setenv("AWS_ACCESS_KEY_ID", base.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", base.SecretAccessKey)
	roleARN := s.IAM.AddRole("210987654321", "deployer", "ext-42")
	ctx := context.Background()

	cfg := newConfig(t, sdk.Credentials{"kind": KindAssumeRole, "roleArn": roleARN, "externalId": "ext-42"})
	id, err := CallerIdentity(ctx, cfg)
	if err != nil {
		t.Fatalf("CallerIdentity: %v", err)
	}
	if want := "arn:aws:sts::210987654321:assumed-role/deployer/" + SessionName; id.ARN != want || id.Account != "210987654321" {
		t.Errorf("identity = %+v, want %s in 210987654321", id, want)
	}

	cfg = newConfig(t, sdk.Credentials{"kind": KindAssumeRole, "roleArn": roleARN, "externalId": "wrong"})
	_, err = CallerIdentity(ctx, cfg)
	assertInvalidInput(t, err, "credentials.roleArn")
	if !strings.Contains(err.Error(), "trust policy") {
		t.Errorf("error %q does not say what to check", err)
	}
	assertNoSecret(t, err.Error(), base)
}

// The host resolves an assume_role credential with its source credential's
// keys (credresolve): the role is assumed with those, not the environment.
func TestConfigAssumesRoleWithTheSourceCredentialTheHostResolved(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	source := s.IAM.AddUser(account, "kubeopera-source")
	roleARN := s.IAM.AddRole("210987654321", "deployer", "")
	cfg := newConfig(t, sdk.Credentials{"kind": KindAssumeRole, "roleArn": roleARN,
		"sourceAccessKeyId": source.AccessKeyID, "sourceSecretAccessKey": source.SecretAccessKey})
	id, err := CallerIdentity(context.Background(), cfg)
	if err != nil || id.Account != "210987654321" {
		t.Fatalf("CallerIdentity = %+v, %v; want the assumed role in 210987654321", id, err)
	}
}
