package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Exit codes a script can act on (documented in docs/cli.md).
const (
	exitOK          = 0
	exitGeneral     = 1 // anything else: the server could not be reached, an unexpected answer
	exitUsage       = 2 // wrong arguments or flags, an unknown context, a disconnect or teardown not confirmed
	exitAuth        = 3 // not logged in, or the token is wrong, revoked or expired (401)
	exitForbidden   = 4 // the token's role may not do this (403)
	exitNotFound    = 5 // no such cluster, credential or token (404)
	exitInvalid     = 6 // the request was refused as invalid (400, 415, 422)
	exitConflict    = 7 // the request conflicts with the current state (409), e.g. a name in use
	exitUnavailable = 8 // the server or something it depends on is unavailable (429, 5xx)
	exitFailed      = 9 // --watch ended with the cluster Failed
	exitTimeout     = 10
)

// exitError carries the exit code for the error it wraps.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitCodeOf is the process's exit code for err.
func exitCodeOf(err error) int {
	var e *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &e):
		return e.code
	case strings.Contains(err.Error(), "unknown flag") || strings.Contains(err.Error(), "accepts ") ||
		strings.Contains(err.Error(), "unknown command") || strings.Contains(err.Error(), "requires at least"):
		return exitUsage
	}
	return exitGeneral
}

// codeForStatus maps an HTTP status to an exit code.
func codeForStatus(status int) int {
	switch {
	case status == http.StatusUnauthorized:
		return exitAuth
	case status == http.StatusForbidden:
		return exitForbidden
	case status == http.StatusNotFound:
		return exitNotFound
	case status == http.StatusConflict:
		return exitConflict
	case status == http.StatusTooManyRequests || status >= 500:
		return exitUnavailable
	case status >= 400:
		return exitInvalid
	}
	return exitGeneral
}

// apiError turns an answer the caller did not expect into one clear line:
// the status and the problem's detail (with the fields it names), and the
// exit code for the status.
func apiError(status int, body []byte) error {
	var p struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Fields []struct {
			Field, Message string
		} `json:"fields"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &p) == nil && p.Detail != "" {
		msg = p.Detail
		if len(p.Fields) > 1 {
			var parts []string
			for _, f := range p.Fields {
				parts = append(parts, f.Field+": "+f.Message)
			}
			msg += " (" + strings.Join(parts, "; ") + ")"
		}
	}
	if len(msg) > 500 {
		msg = msg[:500] + "..."
	}
	return &exitError{code: codeForStatus(status), err: fmt.Errorf("%d %s: %s", status, http.StatusText(status), msg)}
}
