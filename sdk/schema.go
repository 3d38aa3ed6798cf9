package sdk

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// CheckInputs checks inputs against a schema and returns one FieldError per
// problem: a required input that is missing, a value that does not parse as
// its type, a value outside Allowed, or a key the schema does not know.
// Field paths are "inputs.<name>". Providers call it first in Validate and
// then add their own checks.
func CheckInputs(schema []InputField, inputs map[string]string) []FieldError {
	var errs []FieldError
	known := make(map[string]bool, len(schema))
	for _, f := range schema {
		known[f.Name] = true
		v, ok := inputs[f.Name]
		if !ok || v == "" {
			if f.Required && f.Default == "" {
				errs = append(errs, FieldError{Field: "inputs." + f.Name, Message: "is required: " + f.Help})
			}
			continue
		}
		if msg := checkValue(f, v); msg != "" {
			errs = append(errs, FieldError{Field: "inputs." + f.Name, Message: msg})
		}
	}
	var unknown []string
	for k := range inputs {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		errs = append(errs, FieldError{Field: "inputs." + k, Message: "is not an input of this provider; remove it"})
	}
	return errs
}

func checkValue(f InputField, v string) string {
	switch f.Type {
	case Int:
		if _, err := strconv.Atoi(v); err != nil {
			return fmt.Sprintf("must be a whole number, got %q", v)
		}
	case Bool:
		if _, err := strconv.ParseBool(v); err != nil {
			return fmt.Sprintf("must be true or false, got %q", v)
		}
	}
	if len(f.Allowed) > 0 && !slices.Contains(f.Allowed, v) {
		return fmt.Sprintf("must be one of %s, got %q", strings.Join(f.Allowed, ", "), v)
	}
	return ""
}

// WithDefaults returns a copy of inputs with every absent or empty input that
// has a default set to that default.
func WithDefaults(schema []InputField, inputs map[string]string) map[string]string {
	out := make(map[string]string, len(inputs)+len(schema))
	for k, v := range inputs {
		out[k] = v
	}
	for _, f := range schema {
		if out[f.Name] == "" && f.Default != "" {
			out[f.Name] = f.Default
		}
	}
	return out
}
