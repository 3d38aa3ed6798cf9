package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
)

var dnsLabelRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// checkName applies DNS-label rules: the name becomes part of hostnames and
// Kubernetes object names.
func checkName(field, name string) *FieldProblem {
	switch {
	case name == "":
		return &FieldProblem{field, "is required"}
	case len(name) > 63:
		return &FieldProblem{field, fmt.Sprintf("must be at most 63 characters, got %d", len(name))}
	case !dnsLabelRE.MatchString(name):
		return &FieldProblem{field, "must be lowercase letters, digits and '-', starting and ending with a letter or digit (a DNS label), e.g. prod-eu-1"}
	}
	return nil
}

var knownClouds = []string{"aws", "gcp", "azure", "other"}

func checkCloud(field, v string) *FieldProblem {
	if !slices.Contains(knownClouds, v) {
		return &FieldProblem{field, "must be one of " + strings.Join(knownClouds, ", ")}
	}
	return nil
}

var regionRE = regexp.MustCompile(`^[a-z0-9-]{0,64}$`)

func checkRegion(field, v string) *FieldProblem {
	if !regionRE.MatchString(v) {
		return &FieldProblem{field, "must be lowercase letters, digits and '-', e.g. eu-north-1"}
	}
	return nil
}

// collect turns the non-nil checks into a 400, or nil when all passed.
func collect(checks ...*FieldProblem) error {
	var out []FieldProblem
	for _, c := range checks {
		if c != nil {
			out = append(out, *c)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return invalid(out...)
}

// bindJSON decodes a JSON body, saying what is wrong with it when it cannot.
func bindJSON(c *fiber.Ctx, v any) error {
	if !strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEApplicationJSON) {
		return problem(fiber.StatusUnsupportedMediaType, "send the body as application/json")
	}
	if jsonHasNUL(c.Body()) {
		return problem(fiber.StatusBadRequest, "the body has a NUL character (\\u0000): no field takes one")
	}
	// Unknown fields are refused, as the document's schemas say
	// (additionalProperties: false): a misspelt field is an error, not a
	// value silently left out. A request type with its own UnmarshalJSON
	// (credentialRequest) decides for itself.
	dec := json.NewDecoder(bytes.NewReader(c.Body()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return invalid(FieldProblem{strings.Trim(name, `"`), "is not a field of this request; remove it (see /openapi.json)"})
		}
		return problem(fiber.StatusBadRequest, "body is not valid JSON for this request: %v", err)
	}
	if dec.More() {
		return problem(fiber.StatusBadRequest, "body is not valid JSON for this request: more than one JSON value")
	}
	return nil
}

// jsonHasNUL reports whether a JSON text holds a NUL, raw or as the
// escape \u0000 (not an escaped backslash followed by "u0000").
func jsonHasNUL(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(`\u0000`))
		if j < 0 {
			return false
		}
		at, slashes := i+j, 0
		for k := at - 1; k >= 0 && b[k] == '\\'; k-- {
			slashes++
		}
		if slashes%2 == 0 {
			return true
		}
		i = at + 1
	}
}

// refuseNUL answers 400 for a NUL character in the path or the query: no
// name, ID or filter has one, and PostgreSQL's text type refuses it.
func refuseNUL(c *fiber.Ctx) error {
	bad := strings.IndexByte(c.Path(), 0) >= 0
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		bad = bad || bytes.IndexByte(k, 0) >= 0 || bytes.IndexByte(v, 0) >= 0
	})
	if bad {
		return problem(fiber.StatusBadRequest, "the path or query has a NUL character (%%00): no name, ID or filter takes one")
	}
	return c.Next()
}

// checkTopology accepts a topology the provider lists (any, when it lists
// none).
func checkTopology(field, v string, known []string) *FieldProblem {
	if len(known) == 0 || slices.Contains(known, v) {
		return nil
	}
	return &FieldProblem{field, "must be one of " + strings.Join(known, ", ") + " (GET /api/v1/providers lists each provider's)"}
}

// checkGitURLCredentials refuses a repository URL carrying a password or
// token, which would be stored in the cluster's spec in plain text.
func checkGitURLCredentials(field, v string) *FieldProblem {
	u, err := url.Parse(v)
	if err != nil || u.User == nil {
		return nil
	}
	if _, hasPassword := u.User.Password(); hasPassword || u.Scheme == "https" || u.Scheme == "http" {
		return &FieldProblem{field, "must not carry credentials: remove them from the URL and put them in the Secret named by gitCredentialsSecretRef"}
	}
	return nil // ssh://git@host/... names the SSH user, not a secret
}

// checkRepoPath accepts a relative path inside the repository: no leading
// '/', no '..' segment, no backslashes or control characters.
func checkRepoPath(field, v string) *FieldProblem {
	if v == "" {
		return nil
	}
	bad := strings.HasPrefix(v, "/") || strings.ContainsAny(v, "\\\x00\n\r\t") || len(v) > 253
	for _, seg := range strings.Split(v, "/") {
		if seg == ".." || seg == "." {
			bad = true
		}
	}
	if bad {
		return &FieldProblem{field, "must be a relative path inside the repository, such as clusters/prod, without '..' or a leading '/'"}
	}
	return nil
}

// checkSecretRef accepts the name of a Secret in KubeOpera's namespace: a
// DNS subdomain, so no '/' and no '..'.
func checkSecretRef(field, v string) *FieldProblem {
	if v == "" {
		return nil
	}
	if len(v) > 253 || !secretNameRE.MatchString(v) || strings.Contains(v, "..") {
		return &FieldProblem{field, "must be the name of a Secret in KubeOpera's namespace: lowercase letters, digits, '-' and '.', such as git-credentials"}
	}
	return nil
}

var secretNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`)
