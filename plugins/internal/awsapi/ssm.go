package awsapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// ParameterGetter is the part of *ssm.Client that WaitParameter uses.
type ParameterGetter interface {
	GetParameter(ctx context.Context, params *ssm.GetParameterInput, optFns ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

// WaitTimeoutError says an SSM parameter did not appear in time. It matches
// errors.Is(err, context.DeadlineExceeded), so a plugin returning it as is
// answers DeadlineExceeded; one that knows better (the instance that should
// write it failed) can use errors.As and answer FailedPrecondition.
type WaitTimeoutError struct {
	Name   string
	Waited time.Duration
	Polls  int
	// LastErr is the last retryable error met while polling (throttling,
	// AWS unreachable), nil if the parameter was simply absent.
	LastErr error
}

// Error names the parameter, how long the wait lasted and the last error.
func (e *WaitTimeoutError) Error() string {
	msg := fmt.Sprintf("ssm parameter %q did not appear within %s (%d reads)", e.Name, e.Waited.Round(time.Millisecond), e.Polls)
	if e.LastErr != nil {
		msg += "; last error: " + e.LastErr.Error()
	}
	return msg
}

// Unwrap makes the error match context.DeadlineExceeded.
func (e *WaitTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// WaitParameter reads the parameter name (decrypted) every interval until it
// exists, and returns its value. ParameterNotFound, throttling and an
// unreachable AWS keep it polling (the SDK's retryer retries each read
// first); a refused credential ends it at once with sdk.InvalidInput. After
// timeout it returns a *WaitTimeoutError; when ctx ends first, ctx's error.
func WaitParameter(ctx context.Context, c ParameterGetter, name string, interval, timeout time.Duration) (string, error) {
	if interval <= 0 || timeout <= 0 {
		return "", fmt.Errorf("wait for ssm parameter %q: interval and timeout must be positive, got %s and %s", name, interval, timeout)
	}
	start := time.Now()
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in := &ssm.GetParameterInput{Name: aws.String(name), WithDecryption: aws.Bool(true)}
	var lastErr error
	for polls := 1; ; polls++ {
		out, err := c.GetParameter(waitCtx, in)
		switch {
		case err == nil && (out.Parameter == nil || out.Parameter.Value == nil):
			return "", fmt.Errorf("read ssm parameter %q: AWS answered without a value", name)
		case err == nil:
			return *out.Parameter.Value, nil
		case waitCtx.Err() != nil:
			return "", waitEnded(ctx, name, start, polls, lastErr)
		}
		var notFound *types.ParameterNotFound
		if errors.As(err, &notFound) {
			lastErr = nil
		} else if cerr := classify(err, fmt.Sprintf("read ssm parameter %q", name)); sdk.IsRetryable(cerr) {
			lastErr = cerr
		} else {
			return "", cerr
		}
		timer := time.NewTimer(interval)
		select {
		case <-waitCtx.Done():
			timer.Stop()
			return "", waitEnded(ctx, name, start, polls, lastErr)
		case <-timer.C:
		}
	}
}

// waitEnded tells the caller's cancellation from our own timeout.
func waitEnded(ctx context.Context, name string, start time.Time, polls int, lastErr error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("wait for ssm parameter %q: %w", name, err)
	}
	return &WaitTimeoutError{Name: name, Waited: time.Since(start), Polls: polls, LastErr: lastErr}
}

// ParameterPathDeleter is the part of *ssm.Client that DeletePath uses.
type ParameterPathDeleter interface {
	GetParametersByPath(ctx context.Context, params *ssm.GetParametersByPathInput, optFns ...func(*ssm.Options)) (*ssm.GetParametersByPathOutput, error)
	DeleteParameters(ctx context.Context, params *ssm.DeleteParametersInput, optFns ...func(*ssm.Options)) (*ssm.DeleteParametersOutput, error)
}

// DeletePath deletes every parameter under path (recursively) and returns
// how many it deleted. Values are never read (no decryption).
func DeletePath(ctx context.Context, c ParameterPathDeleter, path string) (int, error) {
	var names []string
	in := &ssm.GetParametersByPathInput{Path: aws.String(path), Recursive: aws.Bool(true)}
	for {
		out, err := c.GetParametersByPath(ctx, in)
		if err != nil {
			return 0, classify(err, fmt.Sprintf("list ssm parameters under %s", path))
		}
		for _, p := range out.Parameters {
			names = append(names, aws.ToString(p.Name))
		}
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	for i := 0; i < len(names); i += 10 {
		batch := names[i:min(i+10, len(names))]
		if _, err := c.DeleteParameters(ctx, &ssm.DeleteParametersInput{Names: batch}); err != nil {
			return i, classify(err, fmt.Sprintf("delete ssm parameters under %s", path))
		}
	}
	return len(names), nil
}
