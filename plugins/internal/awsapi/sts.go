package awsapi

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// Identity is who a credential is, as STS says.
type Identity struct {
	// Account is the 12-digit account ID.
	Account string
	// ARN is the caller's ARN, e.g. arn:aws:iam::123456789012:user/alice
	// or arn:aws:sts::123456789012:assumed-role/deployer/kubeopera.
	ARN string
}

// CallerIdentity asks STS who cfg's credential is: the cheapest call that
// proves a credential works, needing no IAM permission. A refused credential
// is sdk.InvalidInput on "credentials"; an unreachable STS is
// sdk.Unavailable.
func CallerIdentity(ctx context.Context, cfg aws.Config) (Identity, error) {
	out, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Identity{}, classify(err, "check the AWS credential with sts:GetCallerIdentity")
	}
	return Identity{Account: aws.ToString(out.Account), ARN: aws.ToString(out.Arn)}, nil
}
