package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Every 429 and 503 the document lists declares its Retry-After header,
// as the server sends one with each (errorHandler, the sign-in limits).
func TestEvery429And503DeclaresRetryAfter(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]any `json:"headers"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for _, status := range []string{"429", "503"} {
				if r, ok := op.Responses[status]; ok {
					n++
					if _, ok := r.Headers["Retry-After"]; !ok {
						t.Errorf("%s %s: its %s declares no Retry-After", strings.ToUpper(method), path, status)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("the document lists no 429 or 503 at all")
	}
}

// A filter outside the document's enum is refused with the values it
// takes, not answered with an empty list as if nothing matched.
func TestClusterFiltersOutsideTheirEnumAreRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, tc := range []struct{ query, field string }{
		{"phase=Sleeping", "phase"},
		{"source=from_mars", "source"},
	} {
		code, body := e.do(http.MethodGet, "/api/v1/clusters?"+tc.query, e.viewer, nil)
		mustStatus(t, tc.query, code, body, http.StatusBadRequest)
		p := decode[Problem](t, body)
		if len(p.Fields) != 1 || p.Fields[0].Field != tc.field || !strings.Contains(p.Fields[0].Message, "want one of") {
			t.Errorf("%s: %+v, want the field %s named with the values it takes", tc.query, p, tc.field)
		}
	}
	code, body := e.do(http.MethodGet, "/api/v1/clusters?phase=Ready&source=provisioned", e.viewer, nil)
	mustStatus(t, "filters inside their enums", code, body, http.StatusOK)
}

// Each reason updateCluster refuses with 409 has its own code, so a client
// tells them apart without reading the detail.
func TestUpdateConflictsEachHaveTheirOwnCode(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	rows := map[string]*store.Cluster{
		CodeNotProvisioned:  {Name: "connected", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"},
		CodePluginNotLoaded: {Name: "orphaned", Provider: "x", Source: store.SourceProvisioned, Plugin: "no-such-plugin", Status: "Ready"},
		CodeNotSupported:    {Name: "stubbed", Provider: "gcp", Source: store.SourceProvisioned, Plugin: "gcp-stub", Status: "Ready"},
	}
	for want, row := range rows {
		if err := e.st.CreateCluster(ctx, row); err != nil {
			t.Fatal(err)
		}
		code, body := e.do(http.MethodPatch, "/api/v1/clusters/"+row.ID, e.admin, map[string]any{"nodeCount": 2})
		mustStatus(t, row.Name, code, body, http.StatusConflict)
		if got := decode[Problem](t, body).Code; got != want {
			t.Errorf("PATCH of %s: code %q, want %q", row.Name, got, want)
		}
	}
	// A problem without a specific code carries its status's.
	code, body := e.do(http.MethodGet, "/api/v1/clusters/no-such-id", e.admin, nil)
	mustStatus(t, "an unknown cluster", code, body, http.StatusNotFound)
	if got := decode[Problem](t, body).Code; got != "not_found" {
		t.Errorf("404 code %q, want not_found", got)
	}
}

// A field the request's schema does not have is refused, as the document
// says (additionalProperties: false), not silently dropped.
func TestUnknownRequestFieldsAreRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodPost, "/api/v1/teams", e.admin, map[string]any{"name": "payments", "nmae": "typo"})
	mustStatus(t, "a team with a misspelt field", code, body, http.StatusBadRequest)
	if p := decode[Problem](t, body); len(p.Fields) != 1 || p.Fields[0].Field != "nmae" {
		t.Errorf("problem %+v, want the field nmae named", p)
	}
	code, body = e.do(http.MethodPost, "/api/v1/teams", e.admin, map[string]any{"name": "payments"})
	mustStatus(t, "the same team without it", code, body, http.StatusCreated)
}
