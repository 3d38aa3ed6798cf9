package api

import (
	"net/http"
	"strings"
	"testing"
)

// NUL characters and blank or oversized values are the client's mistake:
// 400 naming what is wrong, never a 500 from the database, on both.
func TestInputsWithNULOrBlankValuesAreRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		for _, tc := range []struct {
			name, method, path string
			body               any
			says               string
		}{
			{"NUL in a filter", http.MethodGet, "/api/v1/audit?actor=a%00b", nil, "NUL"},
			{"NUL in a sign-in name", http.MethodPost, "/api/v1/session", `{"username":"ops\u0000","password":"x-password-x"}`, "NUL"},
			{"a label of three spaces", http.MethodPost, "/api/v1/credentials", map[string]string{"label": "   ", "kind": "access_key",
				"accessKeyId": testAccessKeyID, "secretAccessKey": testSecretKey}, "label"},
			{"a secret of 40 NULs", http.MethodPost, "/api/v1/credentials", map[string]string{"label": "nul", "kind": "access_key",
				"accessKeyId": testAccessKeyID, "secretAccessKey": strings.Repeat("\x00", 40)}, "NUL"},
			{"a secret of spaces", http.MethodPost, "/api/v1/credentials", map[string]string{"label": "blank", "kind": "access_key",
				"accessKeyId": testAccessKeyID, "secretAccessKey": strings.Repeat(" ", 40)}, "white space"},
			{"an 800 KB sign-in name", http.MethodPost, "/api/v1/session", `{"username":"` + strings.Repeat("a", 800<<10) + `","password":"x-password-x"}`, ""},
		} {
			code, body := e.do(tc.method, tc.path, e.admin, tc.body)
			if code != http.StatusBadRequest && code != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), tc.says) {
				t.Errorf("%s: %d %s; want 400 saying %q", tc.name, code, body, tc.says)
			}
		}
	})
}

func TestJSONHasNULTellsAnEscapeFromEscapedText(t *testing.T) {
	for in, want := range map[string]bool{
		`{"a":"x"}`:             false,
		`{"a":"\u0000"}`:        true,
		`{"a":"\\u0000"}`:       false, // a backslash, then the text u0000
		`{"a":"\\\u0000"}`:      true,
		"{\"a\":\"\x00\"}":      true,
		`{"a":"\\u0000\u0000"}`: true,
	} {
		if got := jsonHasNUL([]byte(in)); got != want {
			t.Errorf("jsonHasNUL(%s) = %v, want %v", in, got, want)
		}
	}
}
