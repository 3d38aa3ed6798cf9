package api

import (
	"fmt"
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
	if err := c.BodyParser(v); err != nil {
		return problem(fiber.StatusBadRequest, "body is not valid JSON for this request: %v", err)
	}
	return nil
}
