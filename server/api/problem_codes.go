package api

import "net/http"

// The specific problem codes: a status with several causes a client acts
// on differently names each.
const (
	// CodePasswordChangeRequired: the user proved their password but must
	// choose a new one (after a reset or an account an admin made) before
	// signing in: POST /api/v1/session/password.
	CodePasswordChangeRequired = "password_change_required"
	// CodeNotProvisioned: KubeOpera did not make the cluster, so it
	// cannot change or destroy it (change it where it was made).
	CodeNotProvisioned = "not_provisioned"
	// CodePluginNotLoaded: the cluster's provider plugin is not loaded.
	CodePluginNotLoaded = "plugin_not_loaded"
	// CodeNotSupported: the cluster's plugin cannot do what was asked (a
	// capability it lacks).
	CodeNotSupported = "not_supported_by_plugin"
	// CodeNotNow: the cluster's phase does not allow it now (the detail
	// says when it will); the cluster's actions say the same.
	CodeNotNow = "not_allowed_now"
	// CodeChanged: the cluster changed since it was read; read it again.
	CodeChanged = "changed_concurrently"
	// CodeNoHostCluster: the row has no HostCluster yet (a hand-over that
	// did not finish; the row is repaired or removed within a minute).
	CodeNoHostCluster = "no_host_cluster"
	// CodeTeardownFailed: the cluster's teardown failed: ask for it again.
	CodeTeardownFailed = "teardown_failed"
)

// statusCodes are the codes of problems without a specific one: the
// status's own, in words.
var statusCodes = map[int]string{
	http.StatusBadRequest:                  "invalid_request",
	http.StatusUnauthorized:                "unauthenticated",
	http.StatusForbidden:                   "forbidden",
	http.StatusNotFound:                    "not_found",
	http.StatusMethodNotAllowed:            "method_not_allowed",
	http.StatusConflict:                    "conflict",
	http.StatusRequestEntityTooLarge:       "body_too_large",
	http.StatusUnsupportedMediaType:        "unsupported_media_type",
	http.StatusUnprocessableEntity:         "unprocessable",
	http.StatusTooManyRequests:             "too_many_requests",
	http.StatusRequestHeaderFieldsTooLarge: "headers_too_large",
	http.StatusInternalServerError:         "internal_error",
	http.StatusBadGateway:                  "upstream_failed",
	http.StatusServiceUnavailable:          "unavailable",
	http.StatusGatewayTimeout:              "upstream_timeout",
}

// ProblemCodes lists every Problem.Code, for the document's enum.
var ProblemCodes = func() []string {
	out := []string{CodePasswordChangeRequired, CodeNotProvisioned, CodePluginNotLoaded, CodeNotSupported, CodeNotNow,
		CodeChanged, CodeNoHostCluster, CodeTeardownFailed}
	for _, status := range []int{400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 431, 500, 502, 503, 504} {
		out = append(out, statusCodes[status])
	}
	return out
}()

// statusCode is the code of a problem of status without a specific one.
func statusCode(status int) string {
	if c, ok := statusCodes[status]; ok {
		return c
	}
	if status >= 500 {
		return statusCodes[http.StatusInternalServerError]
	}
	return statusCodes[http.StatusBadRequest]
}

// coded is p with the specific code.
func coded(code string, p *Problem) *Problem {
	p.Code = code
	return p
}
