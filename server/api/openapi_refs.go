package api

import (
	"reflect"
	"sort"
)

// referenceComponents replaces every copy of a component schema nested in
// another (the reflector writes nested types inline) with a $ref to it, so
// a generated client has one type per component and every component is
// used. A copy counts only when it is equal in every keyword (a request's
// and a response's schema of one type may differ in what they require).
func referenceComponents(schemas map[string]any) map[string]any {
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	// A component nested in a nested one matches only once its own nested
	// copies are references too: repeat until nothing changes.
	for before := ""; ; {
		for _, outer := range names {
			for _, inner := range names {
				if inner != outer {
					schemas[outer] = replaceCopies(schemas[outer], schemas[inner], inner, true)
				}
			}
		}
		after := string(mustJSON(schemas))
		if after == before {
			return schemas
		}
		before = after
	}
}

// replaceCopies returns v with every subtree equal to schema replaced by a
// $ref to name; v itself is never replaced when top.
func replaceCopies(v, schema any, name string, top bool) any {
	if !top && reflect.DeepEqual(v, schema) {
		m := map[string]any{}
		for k, x := range ref(name) {
			m[k] = x
		}
		return m
	}
	switch val := v.(type) {
	case map[string]any:
		for k, x := range val {
			val[k] = replaceCopies(x, schema, name, false)
		}
	case []any:
		for i, x := range val {
			val[i] = replaceCopies(x, schema, name, false)
		}
	}
	return v
}
