package sdk

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies an error so the host can decide what to do with it. Each
// kind maps to one gRPC status code on the wire.
type Kind string

// The error kinds.
const (
	// KindInternal is any error not built with a constructor of this package.
	KindInternal Kind = "internal"
	// KindUnimplemented: the provider does not implement the call.
	KindUnimplemented Kind = "unimplemented"
	// KindInvalidInput: inputs or credentials are wrong; Fields says which.
	KindInvalidInput Kind = "invalid input"
	// KindUnavailable: a dependency (or the plugin itself) is unreachable;
	// retrying later may succeed.
	KindUnavailable Kind = "unavailable"
	// KindFailedPrecondition: the call cannot succeed in the current state,
	// e.g. a provider that is not available yet.
	KindFailedPrecondition Kind = "failed precondition"
	// KindNotFound: the operation or cluster is unknown.
	KindNotFound Kind = "not found"
	// KindDeadlineExceeded: the call ran out of time; retrying may succeed.
	KindDeadlineExceeded Kind = "deadline exceeded"
)

// FieldError is one bad input.
type FieldError struct {
	// Field is the path of the input, e.g. "inputs.nodeCount" or
	// "credentials.secretAccessKey".
	Field string
	// Message says what is wrong and what to do, e.g. "must be odd (1, 3
	// or 5) so etcd keeps quorum".
	Message string
}

func (f FieldError) String() string { return f.Field + ": " + f.Message }

// Error is the typed error every Provider call returns to the host.
type Error struct {
	Kind    Kind
	Message string
	// Fields is set for KindInvalidInput.
	Fields []FieldError

	connectionLost bool
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Message
	}
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.String()
	}
	if e.Message == "" {
		return strings.Join(parts, "; ")
	}
	return e.Message + ": " + strings.Join(parts, "; ")
}

// Is makes errors.Is(err, ErrUnimplemented) and friends match on kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && len(t.Fields) == 0 && t.Kind == e.Kind
}

// Sentinels for errors.Is; they match any *Error of the same kind.
var (
	ErrUnimplemented      = &Error{Kind: KindUnimplemented}
	ErrInvalidInput       = &Error{Kind: KindInvalidInput}
	ErrUnavailable        = &Error{Kind: KindUnavailable}
	ErrFailedPrecondition = &Error{Kind: KindFailedPrecondition}
	ErrNotFound           = &Error{Kind: KindNotFound}
	ErrDeadlineExceeded   = &Error{Kind: KindDeadlineExceeded}
)

// Unimplemented says the provider does not implement a call.
func Unimplemented(format string, args ...any) error {
	return &Error{Kind: KindUnimplemented, Message: fmt.Sprintf(format, args...)}
}

// InvalidInput lists every bad field. It returns nil when fields is empty,
// so a validator can end with `return sdk.InvalidInput(errs...)`.
func InvalidInput(fields ...FieldError) error {
	if len(fields) == 0 {
		return nil
	}
	return &Error{Kind: KindInvalidInput, Message: "invalid input", Fields: fields}
}

// Unavailable says a dependency cannot be reached now; the host retries.
func Unavailable(format string, args ...any) error {
	return &Error{Kind: KindUnavailable, Message: fmt.Sprintf(format, args...)}
}

// FailedPrecondition says the call cannot succeed in the current state.
func FailedPrecondition(format string, args ...any) error {
	return &Error{Kind: KindFailedPrecondition, Message: fmt.Sprintf(format, args...)}
}

// NotFound says an operation or cluster is unknown.
func NotFound(format string, args ...any) error {
	return &Error{Kind: KindNotFound, Message: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of err: KindInternal for errors not built by this
// package, "" for nil.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// IsRetryable reports whether retrying the same call later may succeed.
func IsRetryable(err error) bool {
	k := KindOf(err)
	return k == KindUnavailable || k == KindDeadlineExceeded
}

// IsConnectionLost reports whether err means the connection to the plugin
// broke (the process died or the transport failed), as opposed to an error
// the provider returned itself. Hosts restart the plugin on such errors.
func IsConnectionLost(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.connectionLost
}

// FieldErrors returns the field errors carried by err, if any.
func FieldErrors(err error) []FieldError {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}
