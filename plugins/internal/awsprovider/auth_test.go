package awsprovider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// fakeAWS points the SDK at the fakes with nothing of this machine's AWS
// setup in the way.
func fakeAWS(t *testing.T) *fakeaws.Server {
	t.Helper()
	s := fakeaws.Start(t)
	for k, v := range s.Env() {
		t.Setenv(k, v)
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ROLE_ARN"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return s
}

// No credential kind hands terraform a session that ends after an hour
// and cannot be renewed: what terraform gets, for each kind and source.
func TestTerraformNeverGetsAnHourLongSession(t *testing.T) {
	aws := fakeAWS(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	roleARN := aws.IAM.AddRole("210987654321", "deployer", "ext-1")
	role := func(extra sdk.Credentials) sdk.Credentials {
		c := sdk.Credentials{"kind": "assume_role", "roleArn": roleARN, "externalId": "ext-1"}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	hostSource := sdk.Credentials{"sourceAccessKeyId": user.AccessKeyID, "sourceSecretAccessKey": user.SecretAccessKey}
	// A temporary source in the plugin's environment: a session of a role
	// the plugin host runs as.
	hostRole := aws.IAM.AddRole("123456789012", "plugin-host", "")
	hostSession := aws.IAM.Session(hostRole, "i-0abc", time.Hour)
	cases := []struct {
		name      string
		creds     sdk.Credentials
		env       fakeaws.Principal // the plugin's AWS_* environment
		inJob     bool
		maxRole   time.Duration
		wantKey   string // AWS_ACCESS_KEY_ID terraform gets: "" none, "session" an assumed session
		wantRole  bool
		wantError string
	}{
		{name: "access key", creds: sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID,
			"secretAccessKey": user.SecretAccessKey}, wantKey: user.AccessKeyID},
		{name: "role, source keys from the host", creds: role(hostSource), wantKey: user.AccessKeyID, wantRole: true},
		{name: "role, source keys from the host, in a Job", creds: role(hostSource), inJob: true, wantKey: user.AccessKeyID, wantRole: true},
		{name: "role, long-term keys in the environment", creds: role(nil), env: user, inJob: true, wantKey: user.AccessKeyID, wantRole: true},
		{name: "role, temporary source, local terraform", creds: role(nil), env: hostSession, wantKey: "", wantRole: true},
		{name: "role, temporary source, Job", creds: role(nil), env: hostSession, inJob: true, maxRole: 6 * time.Hour, wantKey: "session"},
		{name: "role, temporary source, Job, role allows an hour", creds: role(nil), env: hostSession, inJob: true,
			wantError: "raise the role's MaxSessionDuration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AWS_ACCESS_KEY_ID", tc.env.AccessKeyID)
			t.Setenv("AWS_SECRET_ACCESS_KEY", tc.env.SecretAccessKey)
			t.Setenv("AWS_SESSION_TOKEN", tc.env.SessionToken)
			aws.IAM.SetMaxSession(roleARN, tc.maxRole)
			start := time.Now()
			env, r, err := terraformAuth(context.Background(), tc.creds, "eu-north-1", tc.inJob)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if env["AWS_REGION"] != "eu-north-1" {
				t.Errorf("AWS_REGION = %q", env["AWS_REGION"])
			}
			switch got := env["AWS_ACCESS_KEY_ID"]; tc.wantKey {
			case "session":
				p, ok := aws.IAM.Key(got)
				if !ok || p.SessionToken != env["AWS_SESSION_TOKEN"] || p.Expires.Sub(start) < 5*time.Hour {
					t.Errorf("session keys %q, known %v, expiring %s: want a session of the role's 6 hours", got, ok, p.Expires.Sub(start))
				}
			default:
				if got != tc.wantKey || env["AWS_SESSION_TOKEN"] != "" {
					t.Errorf("AWS_ACCESS_KEY_ID %q with session token %v, want %q and no token", got, env["AWS_SESSION_TOKEN"] != "", tc.wantKey)
				}
			}
			if (r != nil) != tc.wantRole {
				t.Fatalf("role %+v, want an assume_role block: %v", r, tc.wantRole)
			}
			if r != nil && (r.RoleARN != roleARN || r.ExternalID != "ext-1" || r.SessionName != "kubeopera") {
				t.Errorf("role %+v", r)
			}
		})
	}
}

// The role is assumed once up front, so a bad one fails before terraform
// runs, and the module's provider block assumes it.
func TestTerraformAssumesTheRoleItself(t *testing.T) {
	aws := fakeAWS(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	roleARN := aws.IAM.AddRole("123456789012", "deployer", "ext-1")
	creds := sdk.Credentials{"kind": "assume_role", "roleArn": roleARN, "externalId": "ext-1",
		"sourceAccessKeyId": user.AccessKeyID, "sourceSecretAccessKey": user.SecretAccessKey}
	_, role, err := terraformAuth(context.Background(), creds, "eu-north-1", false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Vanilla("test").flavour.module("c1", map[string]string{"region": "eu-north-1", "controlPlaneCount": "1", "nodeCount": "1",
		"instanceType": "t3.medium", "kubernetesVersion": "1.36", "apiAllowedCIDRs": "203.0.113.0/24"}, placement{role: role})
	if err != nil {
		t.Fatal(err)
	}
	root := string(m.Files["main.tf"])
	if !strings.Contains(root, "assume_role {") || !strings.Contains(root, `role_arn     = "`+roleARN+`"`) ||
		!strings.Contains(root, `external_id  = "ext-1"`) {
		t.Errorf("provider block does not assume the role:\n%s", root)
	}
	creds["externalId"] = "wrong"
	if _, _, err := terraformAuth(context.Background(), creds, "eu-north-1", false); err == nil {
		t.Error("a role that cannot be assumed was handed to terraform")
	}
}
