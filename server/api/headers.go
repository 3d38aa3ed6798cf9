package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// contentSecurityPolicy lets the dashboard load its own scripts, styles
// (inline ones too), images and data URIs, and call this origin only; no
// page may frame it.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
	"script-src 'self'; connect-src 'self'; frame-ancestors 'none'"

// securityHeaders sets the headers every response carries. API responses
// and anything sent with credentials are never stored by a cache: they can
// carry tokens, secrets' metadata and cluster state.
func securityHeaders(c *fiber.Ctx) error {
	setSecurityHeaders(c)
	return c.Next()
}

// setSecurityHeaders is securityHeaders' work, also done for the answers
// the HTTP server gives before any middleware runs (413, 431, 400).
func setSecurityHeaders(c *fiber.Ctx) {
	h := &c.Response().Header
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	if c.Context().IsTLS() {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
	if strings.HasPrefix(c.Path(), "/api/") || c.Get(fiber.HeaderAuthorization) != "" || c.Get(fiber.HeaderCookie) != "" {
		h.Set(fiber.HeaderCacheControl, "no-store")
	}
}

// maxRequestIDLen bounds a client's X-Request-Id, which the request's log
// line carries as client_request_id.
const maxRequestIDLen = 64

// clientRequestIDKey holds a client's X-Request-Id, when short and
// printable ASCII without spaces.
const clientRequestIDKey = "client-request-id"

// serverRequestID sets aside the client's X-Request-Id, so the request ID
// middleware always makes the server's own: the audit log and the logs
// record an ID no client chose (one could otherwise reuse an existing
// event's). A well-formed client ID is kept for the log line only.
func serverRequestID(c *fiber.Ctx) error {
	if id := c.Get(fiber.HeaderXRequestID); id != "" {
		if validRequestID(id) {
			c.Locals(clientRequestIDKey, id)
		}
		c.Request().Header.Del(fiber.HeaderXRequestID)
	}
	return c.Next()
}

func validRequestID(id string) bool {
	if len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// allowedMethods lists the methods the route table serves at path, sorted.
func allowedMethods(path string) []string {
	var out []string
	for _, r := range routes {
		if patternMatches(r.path, path) && !slices.Contains(out, r.method) {
			out = append(out, r.method)
		}
	}
	slices.Sort(out)
	return out
}

// patternMatches reports whether a route pattern such as
// /api/v1/clusters/:id matches path; a ":name" segment matches any
// non-empty segment.
func patternMatches(pattern, path string) bool {
	ps, xs := strings.Split(strings.Trim(pattern, "/"), "/"), strings.Split(strings.Trim(path, "/"), "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if (!strings.HasPrefix(ps[i], ":") || xs[i] == "") && ps[i] != xs[i] {
			return false
		}
	}
	return true
}

// notFound answers a request no route took: 405 with Allow when the path
// exists for other methods, else 404.
func notFound(c *fiber.Ctx) error {
	if allow := allowedMethods(c.Path()); len(allow) > 0 {
		c.Set(fiber.HeaderAllow, strings.Join(allow, ", "))
		return problem(http.StatusMethodNotAllowed, "%s does not take %s; it takes %s", c.Path(), c.Method(), strings.Join(allow, ", "))
	}
	return problem(fiber.StatusNotFound, "no route %s %s; GET /openapi.json lists the API", c.Method(), c.Path())
}
