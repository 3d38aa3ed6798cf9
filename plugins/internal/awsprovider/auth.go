package awsprovider

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// longSessions are the session lengths asked for, longest first, when the
// plugin must assume the role itself (see terraformAuth); below the last
// one a slow destroy or a resumed Job would outlive its keys.
var longSessions = []time.Duration{12 * time.Hour, 6 * time.Hour, 3 * time.Hour, 2 * time.Hour}

// terraformAuth decides how terraform's AWS provider authenticates; the
// result is the runner's environment and, for an assume_role credential,
// the role the provider assumes itself (an assume_role block). A session
// the plugin assumed once lasts an hour by default, so a resumed Job or a
// slow destroy would fail with ExpiredToken; the provider instead assumes
// the role again whenever its session runs out, from source credentials
// that do not expire:
//
//   - access_key: its keys.
//   - assume_role, source keys the host resolved: those keys.
//   - assume_role, source from the plugin's environment, long-term keys:
//     those keys.
//   - assume_role, temporary source (instance role, web identity, SSO, a
//     session token): a local terraform inherits the plugin's environment
//     and refreshes that source itself, so only the region is set. A Job
//     cannot (its pod has none of it): the plugin assumes the role for the
//     longest session the role allows, at least 2 hours, and hands over
//     those keys without an assume_role block.
//
// The role is assumed once here either way, so a bad credential or trust
// policy fails before terraform runs. inJob says terraform runs in a Job.
func terraformAuth(ctx context.Context, creds sdk.Credentials, region string, inJob bool) (map[string]string, *tfmodules.AssumeRole, error) {
	cfg, err := awsapi.Config(ctx, creds, region)
	if err != nil {
		return nil, nil, err
	}
	c, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, nil, sdk.InvalidInput(sdk.FieldError{Field: "credentials",
			Message: "the AWS credential could not be resolved (check the role ARN and its trust policy): " + err.Error()})
	}
	if creds["kind"] != awsapi.KindAssumeRole {
		return credentialEnv(c, region), nil, nil
	}
	role := &tfmodules.AssumeRole{RoleARN: creds["roleArn"], ExternalID: creds["externalId"], SessionName: awsapi.SessionName}
	source, err := awsapi.SourceConfig(ctx, creds, region)
	if err != nil {
		return nil, nil, err
	}
	sc, err := source.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, nil, sdk.InvalidInput(sdk.FieldError{Field: "credentials",
			Message: "the credentials to assume the role with could not be resolved: " + err.Error()})
	}
	switch {
	case sc.SessionToken == "" && !sc.CanExpire:
		return credentialEnv(sc, region), role, nil
	case !inJob:
		return map[string]string{"AWS_REGION": region}, role, nil
	}
	long, err := awsapi.LongSession(ctx, source, creds, longSessions...)
	if err != nil {
		return nil, nil, err
	}
	return credentialEnv(long, region), nil, nil
}

// credentialEnv is the environment terraform's AWS provider reads its
// credentials from.
func credentialEnv(c aws.Credentials, region string) map[string]string {
	env := map[string]string{"AWS_REGION": region, "AWS_ACCESS_KEY_ID": c.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY": c.SecretAccessKey}
	if c.SessionToken != "" {
		env["AWS_SESSION_TOKEN"] = c.SessionToken
	}
	return env
}
