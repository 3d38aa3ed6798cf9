// Package addonschema checks an EKS add-on's configuration values against
// the JSON schema EKS validates them with (eks:DescribeAddonConfiguration),
// before any apply: CreateAddon refuses values the schema does not allow,
// which would fail every apply and every retry some 20 minutes in.
//
// It knows the part of JSON Schema that EKS's add-on schemas use: type,
// properties, additionalProperties, patternProperties, propertyNames,
// required, enum, items, minLength, maxLength, pattern, minimum, maximum,
// and $ref to the schema's own $defs or definitions. A keyword it does not
// know is ignored, so an unknown keyword never refuses good values.
package addonschema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Error says which configuration value the schema refuses and why.
type Error struct {
	// Path is the value's key path, e.g. controller.k8sTagClusterId.
	Path string
	// Allowed are the keys the schema allows beside Path's last key,
	// for an unknown key; empty otherwise.
	Allowed []string
	// Reason says what is wrong.
	Reason string
}

func (e *Error) Error() string {
	if e.Allowed != nil {
		return fmt.Sprintf("%s: %s; the add-on's schema allows only: %s", e.Path, e.Reason, strings.Join(e.Allowed, ", "))
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Reason)
}

// Validate checks values (a JSON object, as configuration_values) against
// schema (a JSON Schema document, as DescribeAddonConfiguration's
// configurationSchema). The first value refused is an *Error.
func Validate(schema, values []byte) error {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return fmt.Errorf("read the add-on's configuration schema: %w", err)
	}
	var v any
	if err := json.Unmarshal(values, &v); err != nil {
		return fmt.Errorf("read the add-on's configuration values: %w", err)
	}
	return checker{root: root}.check(root, v, "")
}

type checker struct{ root map[string]any }

// resolve follows a local $ref (#/$defs/x, #/definitions/x).
func (c checker) resolve(s map[string]any) map[string]any {
	for range 16 { // a cycle of $refs ends here
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		var node any = c.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, _ := node.(map[string]any)
			node = m[part]
		}
		next, ok := node.(map[string]any)
		if !ok {
			return map[string]any{}
		}
		s = next
	}
	return s
}

func (c checker) check(schema map[string]any, v any, path string) error {
	s := c.resolve(schema)
	if err := checkType(s, v, path); err != nil {
		return err
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		return &Error{Path: at(path), Reason: fmt.Sprintf("%v is not one of %v", v, enum)}
	}
	switch v := v.(type) {
	case map[string]any:
		return c.object(s, v, path)
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, it := range v {
				if err := c.check(items, it, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	case string:
		return checkString(s, v, at(path))
	case float64:
		if lo, ok := s["minimum"].(float64); ok && v < lo {
			return &Error{Path: at(path), Reason: fmt.Sprintf("%v is below the minimum %v", v, lo)}
		}
		if hi, ok := s["maximum"].(float64); ok && v > hi {
			return &Error{Path: at(path), Reason: fmt.Sprintf("%v is above the maximum %v", v, hi)}
		}
	}
	return nil
}

// object checks an object's keys (in order, so the first refusal is
// always the same one) and their values.
func (c checker) object(s map[string]any, v map[string]any, path string) error {
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	for _, r := range stringsOf(s["required"]) {
		if _, ok := v[r]; !ok {
			return &Error{Path: join(path, r), Reason: "is required"}
		}
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if names, ok := s["propertyNames"].(map[string]any); ok {
			if err := checkString(c.resolve(names), k, join(path, k)+" (the key)"); err != nil {
				return err
			}
		}
		matched := false
		if p, ok := props[k].(map[string]any); ok {
			matched = true
			if err := c.check(p, v[k], join(path, k)); err != nil {
				return err
			}
		}
		for pat, ps := range patterns {
			re, err := regexp.Compile(pat)
			p, ok := ps.(map[string]any)
			if err != nil || !ok || !re.MatchString(k) {
				continue
			}
			matched = true
			if err := c.check(p, v[k], join(path, k)); err != nil {
				return err
			}
		}
		if matched {
			continue
		}
		switch extra := s["additionalProperties"].(type) {
		case bool:
			if !extra {
				allowed := make([]string, 0, len(props))
				for p := range props {
					allowed = append(allowed, p)
				}
				sort.Strings(allowed)
				return &Error{Path: join(path, k), Reason: "is not a key the add-on accepts", Allowed: allowed}
			}
		case map[string]any:
			if err := c.check(extra, v[k], join(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkType(s map[string]any, v any, path string) error {
	want := stringsOf(s["type"])
	if len(want) == 0 {
		return nil
	}
	got := typeOf(v)
	for _, w := range want {
		if w == got || (w == "number" && got == "integer") {
			return nil
		}
	}
	return &Error{Path: at(path), Reason: fmt.Sprintf("is %s, the add-on wants %s", got, strings.Join(want, " or "))}
}

func checkString(s map[string]any, v, path string) error {
	n := float64(utf8.RuneCountInString(v))
	if lo, ok := s["minLength"].(float64); ok && n < lo {
		return &Error{Path: path, Reason: fmt.Sprintf("%q is shorter than %v characters", v, lo)}
	}
	if hi, ok := s["maxLength"].(float64); ok && n > hi {
		return &Error{Path: path, Reason: fmt.Sprintf("%q is longer than %v characters", v, hi)}
	}
	if pat, ok := s["pattern"].(string); ok {
		if re, err := regexp.Compile(pat); err == nil && !re.MatchString(v) {
			return &Error{Path: path, Reason: fmt.Sprintf("%q does not match %s", v, pat)}
		}
	}
	return nil
}

func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// stringsOf reads a keyword that is a string or a list of strings.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func at(path string) string {
	if path == "" {
		return "(the values)"
	}
	return path
}
