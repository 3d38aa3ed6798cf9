package api

import (
	"bytes"
	"os"
	"testing"
)

// The dashboard's API types are generated from web/openapi.json: it must be
// the document the server builds, or the types have drifted.
func TestDashboardOpenAPIIsCurrent(t *testing.T) {
	committed, err := os.ReadFile("../../web/openapi.json")
	if err != nil {
		t.Fatalf("%v: run make web-types", err)
	}
	if !bytes.Equal(bytes.TrimSpace(committed), bytes.TrimSpace(OpenAPIDocument())) {
		t.Error("web/openapi.json differs from the document the server builds, so the dashboard's API types (web/src/api/schema.ts) " +
			"are stale: run make web-types and commit both")
	}
}
