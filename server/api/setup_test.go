package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/ochestra-tech/kubeopera/server/store"

	"github.com/ochestra-tech/kubeopera/internal/testkit/together"
)

const (
	setupPath       = "/api/v1/setup"
	setupAdminPath  = "/api/v1/setup/admin"
	adminExistsText = "an administrator already exists; this endpoint works only once"
	testSetupSecret = "setup-secret-for-tests-0123456789abcdef"
)

// setup sends POST /setup/admin with the setup secret.
func (e *env) setup(body any) (int, []byte) {
	e.t.Helper()
	return e.setupWith(testSetupSecret, body)
}

// setupWith sends POST /setup/admin with secret in the header ("" for none).
func (e *env) setupWith(secret string, body any) (int, []byte) {
	e.t.Helper()
	j, _ := json.Marshal(body)
	if s, ok := body.(string); ok {
		j = []byte(s)
	}
	req := httptest.NewRequest(http.MethodPost, setupAdminPath, bytes.NewReader(j))
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set(SetupSecretHeader, secret)
	}
	return e.send(req)
}

// eachStore runs fn against an API on SQLite and on PostgreSQL.
func eachStore(t *testing.T, fn func(t *testing.T, e *env)) {
	for _, db := range []struct {
		name     string
		postgres bool
	}{{store.DialectSQLite, false}, {store.DialectPostgres, true}} {
		t.Run(db.name, func(t *testing.T) { fn(t, newEnv(t, envOpts{postgres: db.postgres})) })
	}
}

// adminExists asks GET /setup.
func (e *env) adminExists(t *testing.T) bool {
	t.Helper()
	code, body := e.do(http.MethodGet, setupPath, "", nil)
	mustStatus(t, "GET "+setupPath, code, body, 200)
	return decode[setupStatus](t, body).AdminExists
}

// assertNeverShown fails when any of texts contains a secret.
func assertNeverShown(t *testing.T, texts []string, secrets ...string) {
	t.Helper()
	for _, text := range texts {
		for _, secret := range secrets {
			if secret != "" && strings.Contains(text, secret) {
				t.Errorf("a secret appears in a response or log line: %s", text)
			}
		}
	}
}

func TestSetupCreatesTheFirstAdminOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		const password = "first-admin-pw-Zq8!x"
		if e.adminExists(t) {
			t.Fatal("adminExists is true on a new installation")
		}
		code, body := e.setup(map[string]string{"email": "Ops@Example.com", "username": "ops-admin", "password": password})
		mustStatus(t, "first setup", code, body, 201)
		got := decode[map[string]any](t, body)
		keys := slices.Sorted(maps.Keys(got))
		if want := []string{"createdAt", "email", "id", "username"}; !reflect.DeepEqual(keys, want) {
			t.Errorf("response has keys %v, want exactly %v: %s", keys, want, body)
		}
		created := decode[setupAdminResponse](t, body)
		if created.Email != "ops@example.com" || created.Username != "ops-admin" || created.ID == "" || created.CreatedAt.IsZero() {
			t.Errorf("response = %+v", created)
		}

		row, err := e.st.GetUser(context.Background(), created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !row.SuperAdmin || row.Role != PlatformAdmin {
			t.Errorf("stored user is super-admin %v with role %q, want true and %q", row.SuperAdmin, row.Role, PlatformAdmin)
		}
		if err := bcrypt.CompareHashAndPassword([]byte(row.PasswordHash), []byte(password)); err != nil {
			t.Errorf("the stored hash does not verify the password: %v", err)
		}
		if bcrypt.CompareHashAndPassword([]byte(row.PasswordHash), []byte(password+"x")) == nil {
			t.Error("the stored hash verifies a wrong password")
		}
		if cost, err := bcrypt.Cost([]byte(row.PasswordHash)); err != nil || cost != passwordHashCost {
			t.Errorf("bcrypt cost %d (%v), want %d", cost, err, passwordHashCost)
		}
		if !e.adminExists(t) {
			t.Error("adminExists is false after the admin was created")
		}

		responses := []string{string(body)}
		for _, tc := range []struct {
			name string
			body any
		}{
			{"the same request again", map[string]string{"email": "ops@example.com", "username": "ops-admin", "password": password}},
			{"another admin", map[string]string{"email": "second@example.com", "username": "second", "password": "second-admin-password"}},
			{"an invalid request, once closed", map[string]string{"email": "x", "username": "X", "password": "short"}},
		} {
			code, body := e.setup(tc.body)
			if p := decode[Problem](t, body); code != 409 || p.Detail != adminExistsText {
				t.Errorf("%s: %d %s, want 409 %q", tc.name, code, body, adminExistsText)
			}
			responses = append(responses, string(body))
		}
		if !strings.Contains(e.logs.String(), `"msg":"super-admin created"`) {
			t.Errorf("the creation is not logged:\n%s", e.logs.String())
		}
		assertNeverShown(t, append(responses, e.logs.String()), password, row.PasswordHash)
	})
}

// TestConcurrentSetupCallsCreateExactlyOneAdmin: half the racers share an
// email and username, so the database may report those rather than the
// super-admin rule; every loser must still be told an admin exists.
func TestConcurrentSetupCallsCreateExactlyOneAdmin(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		const racers = 20
		codes, bodies := make([]int, racers), make([][]byte, racers)
		together.Run(racers, func(i int) {
			name := "racer"
			if i%2 == 1 {
				name = fmt.Sprintf("racer-%02d", i)
			}
			codes[i], bodies[i] = e.setup(map[string]string{"email": name + "@example.com", "username": name, "password": "racing-password-" + name})
		})

		count := map[int]int{}
		var winner setupAdminResponse
		for i, code := range codes {
			count[code]++
			switch code {
			case 201:
				winner = decode[setupAdminResponse](t, bodies[i])
			case 409:
				if p := decode[Problem](t, bodies[i]); p.Detail != adminExistsText {
					t.Errorf("racer %d: 409 %q, want %q", i, p.Detail, adminExistsText)
				}
			}
		}
		if count[201] != 1 || count[409] != racers-1 {
			t.Fatalf("status counts %v, want one 201 and %d 409s", count, racers-1)
		}
		if _, err := e.st.GetUser(context.Background(), winner.ID); err != nil {
			t.Errorf("the winner's row: %v", err)
		}
		if !e.adminExists(t) {
			t.Error("adminExists is false after the race")
		}
	})
}

func TestSetupAdminNamesEachInvalidField(t *testing.T) {
	e := newEnv(t, envOpts{})
	const good = "a-good-long-password"
	for _, tc := range []struct {
		name                      string
		email, username, password string
		fields                    []string
	}{
		{"everything missing", "", "", "", []string{"email", "username", "password"}},
		{"not an email", "ops.example.com", "ops", good, []string{"email"}},
		{"a display name", "Ops <ops@example.com>", "ops", good, []string{"email"}},
		{"a domain without a dot", "ops@localhost", "ops", good, []string{"email"}},
		{"an email over 254 characters", strings.Repeat("o", 250) + "@example.com", "ops", good, []string{"email"}},
		{"a username under 3 characters", "ops@example.com", "op", good, []string{"username"}},
		{"a username over 63 characters", "ops@example.com", strings.Repeat("o", 64), good, []string{"username"}},
		{"uppercase in the username", "ops@example.com", "Ops", good, []string{"username"}},
		{"a username starting with '-'", "ops@example.com", "-ops", good, []string{"username"}},
		{"a username with '_'", "ops@example.com", "ops_admin", good, []string{"username"}},
		{"a password of 15 characters", "ops@example.com", "ops", "fifteen-chars-x", []string{"password"}},
		{"a password of 16 bytes but 8 characters", "ops@example.com", "ops", strings.Repeat("é", 8), []string{"password"}},
		{"a password over bcrypt's 72 bytes", "ops@example.com", "ops", strings.Repeat("p", 73), []string{"password"}},
		{"two fields at once", "nope", "ops", "short-pw-secret", []string{"email", "password"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.setup(map[string]string{"email": tc.email, "username": tc.username, "password": tc.password})
			p := decode[Problem](t, body)
			var fields []string
			for _, f := range p.Fields {
				fields = append(fields, f.Field)
			}
			if code != 400 || !reflect.DeepEqual(fields, tc.fields) {
				t.Errorf("status %d, fields %v; want 400 naming %v: %s", code, fields, tc.fields, body)
			}
			if tc.password != "" && strings.Contains(string(body), tc.password) {
				t.Errorf("the response repeats the password: %s", body)
			}
		})
	}
	code, body := e.setup(`{"email":`)
	if code != 400 || !strings.Contains(string(body), "not valid JSON") {
		t.Errorf("broken JSON: %d %s", code, body)
	}
	req := httptest.NewRequest(http.MethodPost, setupAdminPath, strings.NewReader(`{}`))
	if code, body := e.send(req); code != 415 {
		t.Errorf("no JSON content type: %d %s", code, body)
	}
	if e.adminExists(t) {
		t.Error("an invalid request created an admin")
	}
	assertNeverShown(t, []string{e.logs.String()}, "fifteen-chars-x", "short-pw-secret", good)
}

// The boundaries of the password rule: characters are counted for the
// minimum, bytes (bcrypt's unit) for the maximum.
func TestPasswordLengthBoundaries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		password string
		ok       bool
	}{
		{"16 ASCII characters", strings.Repeat("p", 16), true},
		{"16 two-byte characters", strings.Repeat("é", 16), true},
		{"15 characters", strings.Repeat("p", 15), false},
		{"72 bytes", strings.Repeat("p", 72), true},
		{"73 bytes", strings.Repeat("p", 73), false},
		{"37 two-byte characters, 74 bytes", strings.Repeat("é", 37), false},
	} {
		if got := checkPassword("password", tc.password) == nil; got != tc.ok {
			t.Errorf("%s: accepted = %v, want %v", tc.name, got, tc.ok)
		}
	}
}

func TestSetupRoutesAreDocumentedAsPublic(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodGet, "/openapi.json", "", nil)
	mustStatus(t, "openapi", code, body, 200)
	doc := decode[struct {
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}](t, body)
	post, get := doc.Paths[setupAdminPath]["post"], doc.Paths[setupPath]["get"]
	if post == nil || get == nil {
		t.Fatalf("/openapi.json lacks the setup routes: %v %v", post, get)
	}
	if sec, _ := get["security"].([]any); sec == nil || len(sec) != 0 {
		t.Errorf("GET %s is not documented as anonymous (security: []): %v", setupPath, get["security"])
	}
	if sec := fmt.Sprint(post["security"]); sec != "[map[setupSecret:[]]]" {
		t.Errorf("POST %s is documented with security %s, want the setup secret alone (no token)", setupAdminPath, sec)
	}
	if _, ok := post["responses"].(map[string]any)["201"]; !ok {
		t.Errorf("POST %s documents no 201: %v", setupAdminPath, post["responses"])
	}
	for _, s := range []string{"SetupStatus", "SetupAdminRequest", "SetupAdmin"} {
		if doc.Components.Schemas[s] == nil {
			t.Errorf("schema %s is not in /openapi.json", s)
		}
	}
}
