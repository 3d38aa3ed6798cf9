package terraform

import (
	"fmt"
	"os"
	"os/user"
	"regexp"
	"strings"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// lockError is the summary terraform prints when another client holds the
// state lock.
const lockError = "Error acquiring the state lock"

// retryableHints are parts of terraform errors that a later attempt may
// not meet: a held lock, a backend or API that could not be reached, a
// throttled API. Everything else terraform reports (configuration, inputs,
// credentials, preconditions, quotas) needs a person.
var retryableHints = []string{
	lockError,
	"the state is already locked", // init, when it creates the state of a new workspace
	"execution halted",
	"connection refused",
	"connection reset by peer",
	"i/o timeout",
	"TLS handshake timeout",
	"no such host",
	"context deadline exceeded",
	"Client.Timeout exceeded",
	"ServiceUnavailable",
	"Service Unavailable",
	"TooManyRequests",
	"Too Many Requests",
	"Throttling",
	"RequestLimitExceeded",
	"rate exceeded",
	"InternalError",
	"try again",
}

// terminalHints are summaries of errors in the module itself (the
// plugin's code) or the executor's setup: no change of inputs or retry
// fixes them.
var terminalHints = []string{
	"Reference to undeclared",
	"Invalid reference",
	"Unsupported argument",
	"Unsupported attribute",
	"Unsupported block type",
	"Missing required argument",
	"Missing required provider",
	"Module not installed",
	"Unsupported Terraform Core version",
	"Unsupported backend type",
	"Incompatible provider version",
}

// classify says what a person or the host should do about a failed
// attempt whose terraform errors are errs: Retryable when any error may go
// away by itself, Terminal when the module is broken, else UserFixable.
// An attempt without any terraform error died from outside (a signal, a
// lost pod) and is Retryable.
func classify(errs []string) sdk.ErrorClass {
	if len(errs) == 0 || containsAny(errs, retryableHints) {
		return sdk.Retryable
	}
	if containsAny(errs, terminalHints) {
		return sdk.Terminal
	}
	return sdk.UserFixable
}

func containsAny(errs, hints []string) bool {
	for _, e := range errs {
		for _, h := range hints {
			if strings.Contains(e, h) {
				return true
			}
		}
	}
	return false
}

// lockInfo is the "Lock Info:" terraform prints with lockError.
type lockInfo struct {
	ID, Who, Operation string
	Created            time.Time
}

var lockField = regexp.MustCompile(`(?m)^\s+(ID|Who|Operation|Created):\s*(.*?)\s*$`)

// parseLockInfo finds the lock in terraform's error output; ok is false
// when the output is not a lock error.
func parseLockInfo(out string) (lockInfo, bool) {
	i := strings.Index(out, lockError)
	if i < 0 {
		return lockInfo{}, false
	}
	var li lockInfo
	for _, m := range lockField.FindAllStringSubmatch(out[i:], -1) {
		switch m[1] {
		case "ID":
			li.ID = m[2]
		case "Who":
			li.Who = m[2]
		case "Operation":
			li.Operation = m[2]
		case "Created":
			// Go's time.Time.String layout, which terraform uses.
			li.Created, _ = time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", m[2])
		}
	}
	return li, li.ID != ""
}

// localWho is the Who terraform records in a lock it takes from this
// process: user name @ host name.
func localWho() string {
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}

// lockedMessage says who holds the lock and how to release it.
func lockedMessage(a Action, li lockInfo) string {
	return fmt.Sprintf("terraform %s: the state is locked by %s since %s (%s, lock ID %s); "+
		"if no terraform runs for this cluster any more, release it with `terraform force-unlock %s` and start again",
		a, li.Who, li.Created.UTC().Format(time.RFC3339), li.Operation, li.ID, li.ID)
}

// finishedStatus builds the Status of a finished attempt from its log.
func finishedStatus(a Action, ok bool, s logSummary, fallback string) Status {
	st := Status{LogTail: s.tail}
	if ok {
		st.State, st.Progress = sdk.Succeeded, 100
		st.Message = successMessage(a, s)
		return st
	}
	st.State, st.Progress = sdk.Failed, s.progress()
	st.ErrorClass = classify(s.errors)
	st.Message = s.failureMessage(a)
	if st.Message == "" {
		st.Message = fallback
	}
	return st
}

func successMessage(a Action, s logSummary) string {
	switch {
	case a == Destroy:
		return fmt.Sprintf("terraform destroy: complete, %d resources destroyed", s.destroyed)
	case s.noChanges || !s.planned:
		return "terraform apply: complete, no changes were needed"
	default:
		return fmt.Sprintf("terraform apply: complete, %d added, %d changed, %d destroyed",
			s.created, s.modified, s.destroyed)
	}
}
