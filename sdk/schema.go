package sdk

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// CheckInputs checks inputs against a schema and returns one FieldError per
// problem: a required input that is missing, a value that does not parse as
// its type, a value outside Allowed, Min and Max or not matching Pattern, or
// a key the schema does not know. Field paths are "inputs.<name>". Providers
// call it first in Validate and then add their own checks.
func CheckInputs(schema []InputField, inputs map[string]string) []FieldError {
	return CheckFields("inputs.", schema, inputs)
}

// CheckCredential checks the fields of a credential against its kind, with
// field paths "credentials.<name>". The "kind" key is allowed.
func CheckCredential(kind CredentialKind, values map[string]string) []FieldError {
	rest := make(map[string]string, len(values))
	for k, v := range values {
		if k != "kind" {
			rest[k] = v
		}
	}
	return CheckFields("credentials.", kind.Fields, rest)
}

// CheckFields is CheckInputs with the field path prefix of your choice.
func CheckFields(prefix string, schema []InputField, values map[string]string) []FieldError {
	var errs []FieldError
	known := make(map[string]bool, len(schema))
	for _, f := range schema {
		known[f.Name] = true
		v, ok := values[f.Name]
		if !ok || v == "" {
			if f.Required && f.Default == "" {
				errs = append(errs, FieldError{Field: prefix + f.Name, Message: "is required: " + f.Help})
			}
			continue
		}
		if msg := checkValue(f, v); msg != "" {
			errs = append(errs, FieldError{Field: prefix + f.Name, Message: msg})
		}
	}
	var unknown []string
	for k := range values {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	noun := "field"
	if prefix == "inputs." {
		noun = "input"
	}
	for _, k := range unknown {
		errs = append(errs, FieldError{Field: prefix + k, Message: "is not " + article(noun) + " of this provider; remove it"})
	}
	return errs
}

// checkValue never repeats a secret value in its message.
func checkValue(f InputField, v string) string {
	shown := strconv.Quote(v)
	if f.Secret {
		shown = "a secret value"
	}
	switch f.Type {
	case Int:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "must be a whole number, got " + shown
		}
		if f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max {
			return fmt.Sprintf("must be %s, got %d", rangeText(f.Min, f.Max), n)
		}
	case Bool:
		if _, err := strconv.ParseBool(v); err != nil {
			return "must be true or false, got " + shown
		}
	}
	if len(f.Allowed) > 0 && !slices.Contains(f.Allowed, v) {
		return fmt.Sprintf("must be one of %s, got %s", strings.Join(f.Allowed, ", "), shown)
	}
	if f.Pattern != "" {
		re, err := regexp.Compile("^(?:" + f.Pattern + ")$")
		if err != nil {
			return "cannot be checked: the provider's pattern does not compile (" + err.Error() + "); report it to its author"
		}
		if !re.MatchString(v) {
			if f.Help != "" {
				return "does not have the expected form: " + f.Help
			}
			return "must match " + f.Pattern + ", got " + shown
		}
	}
	return ""
}

func rangeText(lo, hi *int64) string {
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("between %d and %d", *lo, *hi)
	case lo != nil:
		return fmt.Sprintf("at least %d", *lo)
	}
	return fmt.Sprintf("at most %d", *hi)
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

// CredentialInput returns the schema's CredentialRef field, if it has one.
func CredentialInput(schema []InputField) (InputField, bool) {
	for _, f := range schema {
		if f.Type == CredentialRef {
			return f, true
		}
	}
	return InputField{}, false
}

// ReferencePrefix is the prefix a CredentialRef field of a credential kind
// gives the referenced credential's fields: its name without the suffix
// "CredentialRef" ("sourceCredentialRef" gives "source").
func ReferencePrefix(field string) string { return strings.TrimSuffix(field, "CredentialRef") }

func article(noun string) string {
	if noun == "input" {
		return "an input"
	}
	return "a " + noun
}
