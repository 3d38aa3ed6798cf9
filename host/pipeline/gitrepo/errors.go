package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Kinds of publish failure; test with errors.Is(err, gitrepo.ErrRejected).
var (
	// ErrAuthentication: the server refused the credentials, or they have no
	// access (HTTP 401/403, SSH handshake refused).
	ErrAuthentication = errors.New("git authentication failed")
	// ErrNotFound: the server has no repository at the URL (or hides it
	// from these credentials).
	ErrNotFound = errors.New("git repository not found")
	// ErrRejected: the server refused the push, e.g. a protected branch or
	// a pre-receive hook.
	ErrRejected = errors.New("git push rejected")
	// ErrUnreachable: no connection to the host (DNS, refused, timeout).
	ErrUnreachable = errors.New("git host unreachable")
	// ErrHostKey: the SSH server's host key is not in known_hosts.
	ErrHostKey = errors.New("git SSH host key not trusted")
	// ErrConflict: the branch moved under every attempt to push.
	ErrConflict = errors.New("git branch kept moving")
)

// Error is a publish failure whose message is written for the user (it can
// go verbatim into a status message) and never contains a credential.
type Error struct {
	Kind   error  // one of the Err* sentinels above; Unwrap returns it
	URL    string // the repository URL, credentials redacted
	Reason string // for ErrRejected: the server's reason
	msg    string
}

// Error returns the user-facing message.
func (e *Error) Error() string { return e.msg }

// Unwrap returns Kind, so errors.Is matches the sentinels.
func (e *Error) Unwrap() error { return e.Kind }

func newError(kind error, rawURL, reason, format string, args ...any) *Error {
	u := redactURL(rawURL)
	return &Error{Kind: kind, URL: u, Reason: reason, msg: fmt.Sprintf(format, append([]any{u}, args...)...)}
}

func authError(rawURL string, ssh bool) *Error {
	if ssh {
		return newError(ErrAuthentication, rawURL, "", "git: authentication to %s failed: check the \"identity\" key in the git credentials Secret and that its public key has write access to the repository")
	}
	return newError(ErrAuthentication, rawURL, "", "git: authentication to %s failed: check the username and password/token in the git credentials Secret")
}

func rejectedError(rawURL, reason string) *Error {
	return newError(ErrRejected, rawURL, reason, "git: push to %s rejected: %s", reason)
}

// classify turns a transport failure into an *Error, or returns nil when it
// is none of the known kinds.
func classify(err error, rawURL string, ssh bool) *Error {
	var keyErr *knownhosts.KeyError
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), isSSHAuthFailure(err):
		return authError(rawURL, ssh)
	case errors.Is(err, transport.ErrAuthorizationFailed):
		return newError(ErrAuthentication, rawURL, "", "git: access to %s denied: the credentials in the git credentials Secret have no write access to it")
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return newError(ErrNotFound, rawURL, "", "git: repository %s not found: check the URL, and that the credentials in the git credentials Secret can see the repository")
	case errors.As(err, &keyErr):
		return newError(ErrHostKey, rawURL, "", "git: the SSH host key of %s is not in \"known_hosts\" of the git credentials Secret (or has changed): add the server's current key, e.g. from `ssh-keyscan`")
	case errors.As(err, &dnsErr):
		return newError(ErrUnreachable, rawURL, "", "git: cannot reach %s: host %q not found: check the URL", dnsErr.Name)
	case errors.As(err, &opErr), errors.Is(err, context.DeadlineExceeded):
		return newError(ErrUnreachable, rawURL, "", "git: cannot reach %s: %s: check the URL and that the host is reachable from KubeOpera", netCause(err))
	}
	return nil
}

// isSSHAuthFailure matches the SSH handshake refusing every offered key;
// x/crypto/ssh has no typed error for it.
func isSSHAuthFailure(err error) bool {
	var se *ssh.ServerAuthError
	return errors.As(err, &se) || strings.Contains(err.Error(), "ssh: unable to authenticate")
}

// netCause is the short network reason ("connection refused", "i/o
// timeout") without the addresses around it.
func netCause(err error) string {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		msg := opErr.Err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return opErr.Op + ": " + msg
	}
	return err.Error()
}

// scrub removes every secret from err's message. The result wraps err's
// kind (for errors.Is) only when err is an *Error, whose messages are built
// without secrets in the first place.
func scrub(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		e.msg = redact(e.msg, secrets)
		return e
	}
	msg := redact(err.Error(), secrets)
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

func redact(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	return s
}
