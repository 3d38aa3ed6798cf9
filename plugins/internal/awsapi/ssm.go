package awsapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// ParameterGetter is the part of SSM that WaitParameter uses.
type ParameterGetter interface {
	GetParameter(ctx context.Context, name string, decrypt bool) (string, error)
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
	var lastErr error
	for polls := 1; ; polls++ {
		value, err := c.GetParameter(waitCtx, name, true)
		switch {
		case err == nil:
			return value, nil
		case waitCtx.Err() != nil:
			if !IsParameterNotFound(err) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				lastErr = classifyRaw(err, fmt.Sprintf("read ssm parameter %q", name)) // the read the wait ended in
			}
			return "", waitEnded(ctx, name, start, polls, lastErr)
		}
		if IsParameterNotFound(err) {
			lastErr = nil
		} else if cerr := classifyRaw(err, fmt.Sprintf("read ssm parameter %q", name)); sdk.IsRetryable(cerr) {
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

// ParameterPathDeleter is the part of SSM that DeletePath uses.
type ParameterPathDeleter interface {
	ParameterNames(ctx context.Context, path, token string) ([]string, string, error)
	DeleteParameters(ctx context.Context, names []string) error
}

// DeletePath deletes every parameter under path (recursively) and returns
// how many it deleted. Values are never read (no decryption).
func DeletePath(ctx context.Context, c ParameterPathDeleter, path string) (int, error) {
	var names []string
	for token := ""; ; {
		page, next, err := c.ParameterNames(ctx, path, token)
		if err != nil {
			return 0, classifyRaw(err, fmt.Sprintf("list ssm parameters under %s", path))
		}
		names = append(names, page...)
		if next == "" {
			break
		}
		token = next
	}
	for i := 0; i < len(names); i += 10 {
		if err := c.DeleteParameters(ctx, names[i:min(i+10, len(names))]); err != nil {
			return i, classifyRaw(err, fmt.Sprintf("delete ssm parameters under %s", path))
		}
	}
	return len(names), nil
}
