package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Problem is an RFC 9457 problem document; every error the API returns is
// one, served as application/problem+json.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	// Detail says specifically what was wrong and what to do.
	Detail string `json:"detail"`
	// Fields lists invalid inputs for validation errors.
	Fields []FieldProblem `json:"fields,omitempty"`
	// Code names the problem for a program: a client acts on it rather
	// than on the detail's words. Every problem has one: a specific one
	// where a status has several causes a client treats apart, else the
	// status's own (ProblemCodes lists them all; problem_codes.go).
	Code string `json:"code"`
}

// FieldProblem is one invalid input: its path in the request and why.
type FieldProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (p *Problem) Error() string { return fmt.Sprintf("%d %s: %s", p.Status, p.Title, p.Detail) }

func problem(status int, format string, args ...any) *Problem {
	return &Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: fmt.Sprintf(format, args...)}
}

// invalid is a 400 naming the fields at fault.
func invalid(fields ...FieldProblem) *Problem {
	p := problem(http.StatusBadRequest, "the request has invalid fields")
	if len(fields) == 1 {
		p.Detail = fields[0].Field + ": " + fields[0].Message
	}
	p.Fields = fields
	return p
}

// errorHandler turns every error a handler returns into a problem document.
// Unexpected errors are logged with the request ID and answered 500 without
// their text, which could carry internals. The HTTP server's own refusals
// (a body or headers too large, a malformed request) come here before any
// middleware ran: they get the security headers and are counted for the
// audit log (no one is known to have sent them).
func (s *server) errorHandler(c *fiber.Ctx, err error) error {
	p := toProblem(err)
	if p.Code == "" {
		p.Code = statusCode(p.Status)
	}
	switch {
	case p.Status == http.StatusServiceUnavailable:
		// Expected while a dependency is down: a warning with the
		// detail the client is not shown.
		s.log.Warn("request not served", "method", c.Method(), "route", routePattern(c), "request_id", requestID(c), "reason", err)
	case p.Status >= 500:
		s.log.Error("request failed", "method", c.Method(), "route", routePattern(c), "request_id", requestID(c), "error", err)
	}
	if p.Status == http.StatusServiceUnavailable && len(c.Response().Header.Peek(fiber.HeaderRetryAfter)) == 0 {
		c.Set(fiber.HeaderRetryAfter, retryUnavailable)
	}
	if requestID(c) == "" {
		setSecurityHeaders(c)
		s.metrics.observe(c.Method(), "refused", p.Status, 0)
		s.countNoise(c.UserContext(), c.Method(), p.Status)
	}
	return c.Status(p.Status).JSON(p, "application/problem+json")
}

func toProblem(err error) *Problem {
	var p *Problem
	var conflict *store.ConflictError
	var fe *fiber.Error
	switch {
	case errors.As(err, &p):
		return p
	case errors.As(err, &conflict):
		out := problem(http.StatusConflict, "%s", conflict.Message)
		out.Fields = []FieldProblem{{Field: conflict.Field, Message: conflict.Message}}
		return out
	case store.Unavailable(err):
		return errDatabaseDown()
	case errors.Is(err, store.ErrNotFound):
		return problem(http.StatusNotFound, "%s", err.Error())
	case errors.As(err, &fe):
		msg := fe.Message
		if fe.Code == http.StatusRequestEntityTooLarge {
			msg = fmt.Sprintf("request body is larger than the %d byte limit", maxBodyBytes)
		}
		return problem(fe.Code, "%s", msg)
	}
	return problem(http.StatusInternalServerError, "internal error; the server log has details under this request's ID")
}

// retryUnavailable is the Retry-After of a 503, in seconds.
const retryUnavailable = "5"

// errDatabaseDown is the answer while the database cannot be reached; the
// log has the driver's error.
func errDatabaseDown() *Problem {
	return problem(http.StatusServiceUnavailable, "the database is not reachable; try again shortly")
}
