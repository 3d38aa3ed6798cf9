package api

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// maxTokenNameChars bounds a token's name: it is shown in tables, logs and
// the audit log.
const maxTokenNameChars = 64

// reservedTokenNames are names the server gives tokens itself; a client
// naming a token after one would pass for it in the audit log.
var reservedTokenNames = []string{"initial-admin", "kubeopera", "system"}

// loginTokenPrefix starts the name of a login token ("login:<username>");
// only the exchange names a token so, after its own user.
const loginTokenPrefix = "login:"

// checkTokenName accepts a label of printable characters, at most
// maxTokenNameChars long, that is no reserved name, no login name of
// another user (username is the user a login token is for; "" for a token
// an admin issues) and does not look like a token ID.
func checkTokenName(field, name, username string) *FieldProblem {
	n := utf8.RuneCountInString(name)
	switch {
	case name == "":
		return &FieldProblem{field, "is required: it names the token in logs and the audit log"}
	case !utf8.ValidString(name):
		return &FieldProblem{field, "must be valid UTF-8"}
	case n > maxTokenNameChars:
		return &FieldProblem{field, fmt.Sprintf("must be at most %d characters, got %d", maxTokenNameChars, n)}
	case strings.TrimSpace(name) != name:
		return &FieldProblem{field, "must not start or end with a space"}
	}
	for i, r := range name {
		if msg := tokenNameRuneProblem(r); msg != "" {
			return &FieldProblem{field, fmt.Sprintf("%s (U+%04X at byte %d); use letters, digits, spaces and punctuation such as - _ . : @ /", msg, r, i)}
		}
	}
	lower := strings.ToLower(name)
	for _, r := range reservedTokenNames {
		if lower == r {
			return &FieldProblem{field, fmt.Sprintf("%q is reserved for tokens the server makes; choose another name", name)}
		}
	}
	if strings.HasPrefix(lower, loginTokenPrefix) && lower != loginTokenPrefix+strings.ToLower(username) {
		return &FieldProblem{field, fmt.Sprintf("names starting with %q are reserved for login tokens of that user; choose another name", loginTokenPrefix)}
	}
	if _, err := uuid.Parse(name); err == nil {
		return &FieldProblem{field, "must not look like a token ID: tokens are revoked by ID, and a name is only a label"}
	}
	return nil
}

// tokenNameRuneProblem says what is wrong with r in a token name, or "".
func tokenNameRuneProblem(r rune) string {
	switch {
	case r == utf8.RuneError:
		return "must be valid UTF-8"
	case unicode.IsControl(r):
		return "must not contain control characters"
	case unicode.Is(unicode.Bidi_Control, r) || unicode.In(r, unicode.Cf):
		return "must not contain invisible or text-direction characters"
	case strings.ContainsRune("<>&\"'`\\", r):
		return "must not contain < > & \" ' ` or \\"
	case !unicode.IsPrint(r):
		return "must be printable"
	}
	return ""
}
