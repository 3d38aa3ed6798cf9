package sdk

import (
	"fmt"
	"strings"
	"testing"
)

func TestCheckInputs(t *testing.T) {
	schema := []InputField{
		{Name: "region", Type: String, Required: true, Help: "AWS region"},
		{Name: "nodeCount", Type: Int, Default: "2"},
		{Name: "spot", Type: Bool},
		{Name: "version", Type: String, Default: "1.33", Allowed: []string{"1.32", "1.33"}},
		{Name: "disk", Type: Int, Min: Bound(10), Max: Bound(100)},
		{Name: "zone", Type: String, Pattern: `[a-z]+-[0-9]`},
		{Name: "token", Type: String, Secret: true, Pattern: `tok_[a-z]+`},
	}
	cases := []struct {
		name   string
		inputs map[string]string
		want   []string // field paths
	}{
		{"valid with defaults", map[string]string{"region": "eu-north-1"}, nil},
		{"missing required", map[string]string{}, []string{"inputs.region"}},
		{"empty required counts as missing", map[string]string{"region": ""}, []string{"inputs.region"}},
		{"int that is not a number", map[string]string{"region": "r", "nodeCount": "two"}, []string{"inputs.nodeCount"}},
		{"bool that is not a bool", map[string]string{"region": "r", "spot": "maybe"}, []string{"inputs.spot"}},
		{"value not allowed", map[string]string{"region": "r", "version": "1.20"}, []string{"inputs.version"}},
		{"number below min", map[string]string{"region": "r", "disk": "9"}, []string{"inputs.disk"}},
		{"number above max", map[string]string{"region": "r", "disk": "101"}, []string{"inputs.disk"}},
		{"number at the bounds", map[string]string{"region": "r", "disk": "100"}, nil},
		{"pattern must match in full", map[string]string{"region": "r", "zone": "fsn-1x"}, []string{"inputs.zone"}},
		{"pattern matched", map[string]string{"region": "r", "zone": "fsn-1"}, nil},
		{"unknown keys sorted", map[string]string{"region": "r", "zz": "1", "aa": "2"}, []string{"inputs.aa", "inputs.zz"}},
		{"every problem at once", map[string]string{"nodeCount": "x", "spot": "y"},
			[]string{"inputs.region", "inputs.nodeCount", "inputs.spot"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range CheckInputs(schema, tc.inputs) {
				if e.Message == "" {
					t.Errorf("%s has no message", e.Field)
				}
				got = append(got, e.Field)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("fields = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSecretValueIsNeverRepeated(t *testing.T) {
	schema := []InputField{{Name: "token", Type: String, Secret: true, Pattern: `tok_[a-z]+`}}
	errs := CheckInputs(schema, map[string]string{"token": "hunter2-secret"})
	if len(errs) != 1 || strings.Contains(errs[0].Message, "hunter2") {
		t.Errorf("errors = %v, want one that does not quote the secret", errs)
	}
}

func TestCheckCredentialAllowsKindAndNamesCredentialFields(t *testing.T) {
	kind := CredentialKind{Name: "token", Fields: []InputField{{Name: "token", Type: String, Required: true, Secret: true}}}
	if errs := CheckCredential(kind, map[string]string{"kind": "token", "token": "t"}); len(errs) != 0 {
		t.Errorf("valid credential: %v", errs)
	}
	errs := CheckCredential(kind, map[string]string{"kind": "token"})
	if len(errs) != 1 || errs[0].Field != "credentials.token" {
		t.Errorf("missing field: %v", errs)
	}
}

func TestWithDefaultsFillsOnlyAbsentOrEmpty(t *testing.T) {
	schema := []InputField{{Name: "a", Default: "1"}, {Name: "b", Default: "2"}, {Name: "c"}}
	in := map[string]string{"a": "9", "b": ""}
	got := WithDefaults(schema, in)
	if got["a"] != "9" || got["b"] != "2" || got["c"] != "" {
		t.Errorf("WithDefaults = %v", got)
	}
	if in["b"] != "" {
		t.Errorf("WithDefaults changed its input: %v", in)
	}
}

func TestInvalidInputWithNoFieldsIsNil(t *testing.T) {
	if err := InvalidInput(); err != nil {
		t.Fatalf("InvalidInput() = %v, want nil", err)
	}
}
