package awsapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// refused maps the AWS error codes that mean "this credential is not
// accepted" (query protocol and JSON protocol spellings) to a hint.
var refused = map[string]string{
	"InvalidClientTokenId":        "AWS does not know this access key ID, or it was deactivated",
	"UnrecognizedClientException": "AWS does not know this access key ID, or it was deactivated",
	"SignatureDoesNotMatch":       "the secret access key does not match the access key ID (or this machine's clock is off)",
	"InvalidSignatureException":   "the secret access key does not match the access key ID (or this machine's clock is off)",
	"ExpiredToken":                "the session token has expired",
	"ExpiredTokenException":       "the session token has expired",
	"AuthFailure":                 "AWS does not accept this credential",
	"RequestExpired":              "the session token has expired (or this machine's clock is off)",
	"UnauthorizedOperation":       "the credential lacks a permission of the IAM policy in docs/aws.md",
	"AccessDeniedException":       "the credential lacks a permission of the IAM policy in docs/aws.md",
}

// classify turns an SDK error into the error a plugin returns: a refused
// credential is sdk.InvalidInput on "credentials", a role that cannot be
// assumed is sdk.InvalidInput on "credentials.roleArn", an unreachable or
// busy AWS is sdk.Unavailable, context errors stay context errors. AWS's own
// message is left out of the credential errors: for a signature mismatch it
// spells out the canonical request, session token included.
func classify(err error, doing string) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", doing, err)
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code := ae.ErrorCode()
		if failedIn(err, "AssumeRole") && (code == "AccessDenied" || code == "ValidationError") {
			return sdk.InvalidInput(sdk.FieldError{Field: "credentials.roleArn", Message: fmt.Sprintf(
				"AWS refused to let KubeOpera assume this role (%s); check that the role's trust policy allows "+
					"the principal KubeOpera runs as and that externalId matches the policy's sts:ExternalId", code)})
		}
		if hint, ok := refused[code]; ok {
			return sdk.InvalidInput(sdk.FieldError{Field: "credentials", Message: fmt.Sprintf(
				"AWS refused this credential while trying to %s (%s: %s); update the stored AWS credential", doing, code, hint)})
		}
		if _, ok := retry.DefaultThrottleErrorCodes[code]; ok {
			return sdk.Unavailable("%s: AWS is throttling requests (%s); retry later", doing, code)
		}
	}
	if retryable(err) {
		return sdk.Unavailable("%s: AWS could not be reached or answered with a server error, retry later: %v", doing, err)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// retryable reports a transport failure, a 5xx answer or an exhausted
// client-side retry quota.
func retryable(err error) bool {
	var send *smithyhttp.RequestSendError
	var resp *awshttp.ResponseError
	var quota ratelimit.QuotaExceededError
	return errors.As(err, &send) || errors.As(err, &quota) ||
		(errors.As(err, &resp) && resp.HTTPStatusCode() >= 500)
}

// failedIn reports whether err comes from the named AWS operation, e.g. the
// AssumeRole call made to refresh credentials inside another call.
func failedIn(err error, operation string) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if oe, ok := e.(*smithy.OperationError); ok && oe.OperationName == operation {
			return true
		}
	}
	return false
}

// classifyRaw is classify for the calls sent without a service client: a
// transport failure or server error is retryable.
func classifyRaw(err error, doing string) error {
	var te *transportError
	if errors.As(err, &te) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return sdk.Unavailable("%s: AWS could not be reached or answered with a server error, retry later: %v", doing, err)
	}
	return classify(err, doing)
}
