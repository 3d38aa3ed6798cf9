package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Every mutating request is in the audit log with who, what, target,
// result and request ID, listed newest first, filterable and paginated;
// no secret from any request reaches it.
func TestAuditLogRecordsMutationsWithoutSecrets(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{
		"label": "aws", "kind": "access_key", "accessKeyId": testAccessKeyID, "secretAccessKey": testSecretKey})
	mustStatus(t, "credential", code, body, 201)
	cred := decode[store.Credential](t, body)
	e.do(http.MethodPatch, "/api/v1/credentials/"+cred.ID, e.admin, map[string]string{"label": "aws-2"})
	e.do(http.MethodDelete, "/api/v1/credentials/"+cred.ID, e.viewer, nil) // refused: 403
	e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)                // not a mutation
	code, body = e.setup(map[string]string{"email": "ops@example.com", "username": "ops", "password": "first-admin-password"})
	mustStatus(t, "setup", code, body, 201)
	admin := decode[setupAdminResponse](t, body)

	code, body = e.do(http.MethodGet, "/api/v1/audit", e.admin, nil)
	mustStatus(t, "audit", code, body, 200)
	page := decode[auditPage](t, body)
	var got []string
	for _, ev := range page.Items {
		got = append(got, ev.Method+" "+ev.Route+" "+ev.Target+" "+ev.Actor+" "+strconv.Itoa(ev.Status))
		if ev.RequestID == "" || ev.At.IsZero() {
			t.Errorf("event without request ID or time: %+v", ev)
		}
	}
	want := []string{
		"POST /api/v1/setup/admin " + admin.ID + " ops 201",
		"DELETE /api/v1/credentials/:id " + cred.ID + " test-viewer 403",
		"PATCH /api/v1/credentials/:id " + cred.ID + " test-platform-admin 200",
		"POST /api/v1/credentials " + cred.ID + " test-platform-admin 201",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit events\n got %q\nwant %q", got, want)
	}
	for _, secret := range []string{testSecretKey, "first-admin-password", testSetupSecret, e.admin, e.viewer} {
		if strings.Contains(string(body), secret) {
			t.Errorf("the audit log contains a secret (%.6s…)", secret)
		}
	}

	code, body = e.do(http.MethodGet, "/api/v1/audit?target="+cred.ID+"&actor=test-viewer", e.admin, nil)
	if p := decode[auditPage](t, body); code != 200 || len(p.Items) != 1 || p.Items[0].Status != 403 {
		t.Errorf("filtered: %d %s", code, body)
	}
	code, body = e.do(http.MethodGet, "/api/v1/audit?limit=3", e.admin, nil)
	first := decode[auditPage](t, body)
	if code != 200 || len(first.Items) != 3 || first.Next == "" {
		t.Fatalf("first page: %d %s", code, body)
	}
	code, body = e.do(http.MethodGet, "/api/v1/audit?limit=3&before="+first.Next, e.admin, nil)
	if second := decode[auditPage](t, body); code != 200 || len(second.Items) != 1 || second.Next != "" ||
		second.Items[0].Route != "/api/v1/credentials" {
		t.Errorf("second page: %d %s", code, body)
	}
	if code, _ := e.do(http.MethodGet, "/api/v1/audit", e.viewer, nil); code != 403 {
		t.Errorf("a viewer read the audit log: %d", code)
	}
	rows, err := e.st.ListAuditEvents(context.Background(), store.AuditFilter{Limit: 100})
	if err != nil || len(rows) != 4 {
		t.Errorf("%d rows (%v), want 4: GETs are not audited", len(rows), err)
	}
}
