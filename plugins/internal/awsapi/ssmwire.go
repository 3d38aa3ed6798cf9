package awsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
)

// SSM calls the Parameter Store actions the plugins use (GetParameter,
// GetParametersByPath, PutParameter, DeleteParameters) over SSM's JSON 1.1
// protocol with the SDK's SigV4 signer, as the describe calls do: the SSM
// service client's generated schemas take about 8 ms of every plugin start.
// Like the SDK's standard retryer, it makes up to three attempts of a call
// that was throttled or could not reach AWS.
type SSM struct{ cfg aws.Config }

// NewSSM returns the SSM client of cfg's region and credentials.
func NewSSM(cfg aws.Config) SSM { return SSM{cfg: cfg} }

// ssmAttempts is how often a throttled or unreachable call is tried.
const ssmAttempts = 3

// GetParameter returns the value of parameter name, decrypted when
// decrypt. A missing parameter is an error that IsParameterNotFound
// reports.
func (c SSM) GetParameter(ctx context.Context, name string, decrypt bool) (string, error) {
	in := struct {
		Name           string
		WithDecryption bool
	}{name, decrypt}
	var out struct{ Parameter *struct{ Value *string } }
	if err := c.call(ctx, "GetParameter", in, &out); err != nil {
		return "", err
	}
	if out.Parameter == nil || out.Parameter.Value == nil {
		return "", fmt.Errorf("read ssm parameter %q: AWS answered without a value", name)
	}
	return *out.Parameter.Value, nil
}

// ParameterNames returns one page of the names of the parameters under
// path, at any depth, and the token of the next page ("" on the last).
// Values are not read, so nothing is decrypted.
func (c SSM) ParameterNames(ctx context.Context, path, token string) ([]string, string, error) {
	in := struct {
		Path      string
		Recursive bool
		NextToken string `json:",omitempty"`
	}{path, true, token}
	var out struct {
		Parameters []struct{ Name string }
		NextToken  string
	}
	if err := c.call(ctx, "GetParametersByPath", in, &out); err != nil {
		return nil, "", err
	}
	names := make([]string, 0, len(out.Parameters))
	for _, p := range out.Parameters {
		names = append(names, p.Name)
	}
	return names, out.NextToken, nil
}

// PutText stores value as a plain String parameter (Standard tier),
// replacing one already there.
func (c SSM) PutText(ctx context.Context, name, value string) error {
	in := struct {
		Name      string
		Value     string
		Type      string
		Overwrite bool
	}{name, value, "String", true}
	return c.call(ctx, "PutParameter", in, &struct{}{})
}

// DeleteParameters deletes up to 10 parameters (SSM's limit per call).
func (c SSM) DeleteParameters(ctx context.Context, names []string) error {
	in := struct{ Names []string }{names}
	return c.call(ctx, "DeleteParameters", in, &struct{}{})
}

// IsParameterNotFound reports SSM's answer for a parameter that does not
// exist.
func IsParameterNotFound(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ParameterNotFound"
}

// call sends action with the JSON of in and decodes the answer into out.
func (c SSM) call(ctx context.Context, action string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var data []byte
	for attempt := 1; ; attempt++ {
		req, rerr := newRequest(ctx, http.MethodPost, endpoint(c.cfg, "ssm")+"/", body)
		if rerr != nil {
			return rerr
		}
		req.Header.Set("Content-Type", "application/x-amz-json-1.1")
		req.Header.Set("X-Amz-Target", "AmazonSSM."+action)
		data, err = send(ctx, c.cfg, "ssm", req, body, jsonError)
		if err == nil || attempt == ssmAttempts || !retryableCall(err) {
			break
		}
		// Full jitter, as the SDK's retryer, but short (up to 50, then
		// 100 ms): the callers poll again anyway.
		wait := time.Duration(rand.Int64N(int64(25*time.Millisecond) << attempt)) //nolint:gosec // G404: jitter, not a secret
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
	if err != nil {
		return fmt.Errorf("operation %s: %w", action, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("ssm %s: unreadable answer: %w", action, err)
	}
	return nil
}

// retryableCall: a throttled call, or one that did not reach AWS or met a
// server error.
func retryableCall(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		_, ok := retry.DefaultThrottleErrorCodes[ae.ErrorCode()]
		return ok
	}
	return false
}
