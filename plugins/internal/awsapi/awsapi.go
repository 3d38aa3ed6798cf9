// Package awsapi makes the AWS API calls the AWS provider plugins share: it
// turns a KubeOpera credential into an aws.Config, checks it with
// sts:GetCallerIdentity, waits for an SSM parameter (where a new control
// plane publishes its kubeconfig), and mints EKS bearer tokens and
// kubeconfigs. No error or log line carries a credential value, token or
// kubeconfig.
package awsapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Credential kinds, the "kind" key of sdk.Credentials.
const (
	// KindAccessKey: accessKeyId, secretAccessKey and optionally
	// sessionToken.
	KindAccessKey = "access_key"
	// KindAssumeRole: roleArn and optionally externalId; the role is
	// assumed with the credentials of the plugin's own environment.
	KindAssumeRole = "assume_role"
)

// SessionName is the RoleSessionName of assumed roles, so CloudTrail shows
// which calls KubeOpera made.
const SessionName = "kubeopera"

// Config returns the configuration for calling AWS in region with creds.
// Everything else comes from the plugin's environment as the SDK reads it
// (config.LoadDefaultConfig): endpoint overrides from AWS_ENDPOINT_URL,
// AWS_ENDPOINT_URL_SSM and AWS_ENDPOINT_URL_STS, and for assume_role the
// base credentials (environment, shared files, web identity, instance role).
// Bad or missing fields are an sdk.InvalidInput naming them; no value is
// ever repeated.
func Config(ctx context.Context, creds sdk.Credentials, region string) (aws.Config, error) {
	cfg, err := SourceConfig(ctx, creds, region)
	if err != nil || creds["kind"] != KindAssumeRole {
		return cfg, err
	}
	cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), creds["roleArn"],
		assumeOptions(creds, 0)))
	return cfg, nil
}

// assumeOptions are the AssumeRole settings of an assume_role credential;
// duration 0 leaves the session length to the role (an hour by default).
func assumeOptions(creds sdk.Credentials, duration time.Duration) func(*stscreds.AssumeRoleOptions) {
	return func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = SessionName
		if id := creds["externalId"]; id != "" {
			o.ExternalID = aws.String(id)
		}
		if duration > 0 {
			o.Duration = duration
		}
	}
}

// SourceConfig is Config without the role: for an assume_role credential,
// the configuration of the credentials the role is assumed with (the
// source keys the host resolved, else the plugin's environment). Terraform
// gets these, and assumes the role itself.
func SourceConfig(ctx context.Context, creds sdk.Credentials, region string) (aws.Config, error) {
	if region == "" {
		return aws.Config{}, sdk.InvalidInput(sdk.FieldError{Field: "inputs.region", Message: "is required, e.g. eu-north-1"})
	}
	if err := checkCredentials(creds); err != nil {
		return aws.Config{}, err
	}
	opts := []func(*config.LoadOptions) error{config.WithRegion(region)}
	switch {
	case creds["kind"] == KindAccessKey:
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(
			creds["accessKeyId"], creds["secretAccessKey"], creds["sessionToken"])))
	case creds["sourceAccessKeyId"] != "":
		// The host resolved the role's source credential (the stored
		// credential it names): the role is assumed with those keys.
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(
			creds["sourceAccessKeyId"], creds["sourceSecretAccessKey"], "")))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load the AWS configuration of the plugin's environment (AWS_* variables, shared config files): %w", err)
	}
	return cfg, nil
}

// LongSession assumes the role of an assume_role credential (with
// SourceConfig's cfg) for the longest of durations the role allows,
// trying them in order: AWS refuses a DurationSeconds over the role's
// MaxSessionDuration with a ValidationError, and says nothing of the
// maximum otherwise. It is for callers that must hand over session keys
// that cannot be renewed; the error of the last try says what to change.
func LongSession(ctx context.Context, cfg aws.Config, creds sdk.Credentials, durations ...time.Duration) (aws.Credentials, error) {
	var err error
	for _, d := range durations {
		var c aws.Credentials
		c, err = stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), creds["roleArn"], assumeOptions(creds, d)).Retrieve(ctx)
		if err == nil {
			return c, nil
		}
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationError" || !strings.Contains(ae.ErrorMessage(), "MaxSessionDuration") {
			return aws.Credentials{}, classify(err, "assume the role")
		}
	}
	return aws.Credentials{}, sdk.InvalidInput(sdk.FieldError{Field: "credentials.roleArn", Message: fmt.Sprintf(
		"the role's maximum session duration is below %s, too short for a terraform run that cannot renew it; "+
			"raise the role's MaxSessionDuration (IAM > Roles > Maximum session duration) or store the access key "+
			"to assume it with in KubeOpera (Assume with)", durations[len(durations)-1])})
}

// checkCredentials checks that the fields each kind needs are present; their
// shape is checked by the provider's Validate (internal/awscred).
func checkCredentials(creds sdk.Credentials) error {
	var required []string
	switch creds["kind"] {
	case KindAccessKey:
		required = []string{"accessKeyId", "secretAccessKey"}
	case KindAssumeRole:
		required = []string{"roleArn"}
	default:
		return sdk.InvalidInput(sdk.FieldError{Field: "credentials.kind",
			Message: "must be " + KindAccessKey + " or " + KindAssumeRole})
	}
	var bad []sdk.FieldError
	for _, f := range required {
		if creds[f] == "" {
			bad = append(bad, sdk.FieldError{Field: "credentials." + f,
				Message: "is required for an " + creds["kind"] + " credential"})
		}
	}
	return sdk.InvalidInput(bad...)
}
