package store

import (
	"context"
	"strings"
	"testing"
)

func TestAuditEventFieldsAreBounded(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		ev := &AuditEvent{Actor: strings.Repeat("é", 400), Method: "POST", Route: "/api/v1/x",
			Target: "a\x00b\x07c" + strings.Repeat("z", 4000), Status: 400, RequestID: strings.Repeat("r", 300)}
		if err := s.AddAuditEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetAuditEvent(ctx, ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"actor": got.Actor, "target": got.Target, "request_id": got.RequestID} {
			if len(v) > MaxAuditField || strings.ContainsAny(v, "\x00\x07") {
				t.Errorf("%s stored as %d bytes (%.20q…); want at most %d without control characters", name, len(v), v, MaxAuditField)
			}
		}
		if !strings.HasPrefix(got.Target, "abczz") || got.Actor != strings.Repeat("é", MaxAuditField/2) {
			t.Errorf("cut badly: target %.10q, actor %d bytes", got.Target, len(got.Actor))
		}
	})
}

// A credential and its audit event are stored together or not at all: an
// audit insert that fails takes the credential with it.
func TestCredentialChangesAndTheirAuditEventsCommitTogether(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		c := &Credential{Label: "aws", Kind: "access_key", Ciphertext: []byte("x"), KeyID: "k"}
		if err := s.CreateCredential(ctx, c, &AuditEvent{Actor: "ops", Method: "POST", Route: "/api/v1/credentials", Status: 201}); err != nil {
			t.Fatal(err)
		}
		evs, err := s.ListAuditEvents(ctx, AuditFilter{Target: c.ID, Limit: 5})
		if err != nil || len(evs) != 1 || evs[0].Actor != "ops" {
			t.Fatalf("the create's audit event: %+v, %v; want one naming the new ID", evs, err)
		}
		refuseAuditInserts(t, s)
		c2 := &Credential{Label: "aws-2", Kind: "access_key", Ciphertext: []byte("x"), KeyID: "k"}
		if err := s.CreateCredential(ctx, c2, &AuditEvent{Actor: "ops", Method: "POST", Route: "/api/v1/credentials", Status: 201}); err == nil {
			t.Fatal("a create whose audit event failed succeeded")
		}
		if _, err := s.GetCredential(ctx, c2.ID); err == nil {
			t.Error("the credential was stored without its audit event")
		}
		if err := s.DeleteCredential(ctx, c.ID, &AuditEvent{Actor: "ops", Method: "DELETE", Route: "/api/v1/credentials/:id", Status: 204}); err == nil {
			t.Fatal("a delete whose audit event failed succeeded")
		}
		if _, err := s.GetCredential(ctx, c.ID); err != nil {
			t.Errorf("the credential was deleted without its audit event: %v", err)
		}
	})
}

// refuseAuditInserts makes the database refuse every new audit event.
func refuseAuditInserts(t *testing.T, s *Store) {
	t.Helper()
	stmts := []string{"CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'audit refused'); END"}
	if s.Dialect() == DialectPostgres {
		stmts = []string{
			"CREATE FUNCTION refuse_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$ LANGUAGE plpgsql",
			"CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()",
		}
	}
	for _, q := range stmts {
		if _, err := s.db.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
}
