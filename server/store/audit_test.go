package store

import (
	"context"
	"testing"
	"time"
)

// Audit events and token lifecycle columns on both dialects: newest first,
// filters, pages; revocation, expiry and batched last use.
func TestAuditEventsAndTokenLifecycle(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		s.now = func() time.Time { clock = clock.Add(time.Second); return clock }
		for i, ev := range []AuditEvent{
			{Actor: "a", Method: "POST", Route: "/api/v1/credentials", Status: 201, RequestID: "r1"},
			{Actor: "b", Method: "DELETE", Route: "/api/v1/clusters/:id", Target: "c1", Status: 204, RequestID: "r2"},
			{Actor: "a", Method: "DELETE", Route: "/api/v1/clusters/:id", Target: "c1", Status: 403, RequestID: "r3"},
		} {
			if err := s.AddAuditEvent(ctx, &ev); err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
		}
		all, err := s.ListAuditEvents(ctx, AuditFilter{Limit: 10})
		if err != nil || len(all) != 3 || all[0].RequestID != "r3" || all[2].RequestID != "r1" {
			t.Fatalf("all = %+v, %v; want newest first", all, err)
		}
		if got, _ := s.ListAuditEvents(ctx, AuditFilter{Actor: "a", Target: "c1", Limit: 10}); len(got) != 1 || got[0].RequestID != "r3" {
			t.Errorf("filtered = %+v", got)
		}
		if got, _ := s.ListAuditEvents(ctx, AuditFilter{Before: &all[0], Limit: 1}); len(got) != 1 || got[0].RequestID != "r2" {
			t.Errorf("page after r3 = %+v", got)
		}
		// A window given in another zone: since is inclusive, until is not.
		east := time.FixedZone("UTC+3", 3*3600)
		window := AuditFilter{Since: all[1].At.In(east), Until: all[0].At.In(east), Limit: 10}
		if got, err := s.ListAuditEvents(ctx, window); err != nil || len(got) != 1 || got[0].RequestID != "r2" {
			t.Errorf("events from r2's time until r3's = %+v, %v; want r2 alone", got, err)
		}

		past := clock.Add(-time.Hour)
		live, expired := &Token{Name: "live", Role: "viewer", Hash: "h1"}, &Token{Name: "old", Role: "viewer", Hash: "h2", ExpiresAt: &past}
		for _, tk := range []*Token{live, expired} {
			if err := s.CreateToken(ctx, tk); err != nil {
				t.Fatal(err)
			}
		}
		used := clock.Add(time.Minute)
		if err := s.TouchTokens(ctx, map[string]time.Time{live.ID: used, expired.ID: used}); err != nil {
			t.Fatal(err)
		}
		if err := s.TouchTokens(ctx, map[string]time.Time{live.ID: used.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		got, err := s.TokenByHash(ctx, "h1")
		if err != nil || got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) || !got.Active(clock) {
			t.Errorf("live token = %+v, %v; want last use %v kept (never moved back)", got, err, used)
		}
		if old, _ := s.TokenByHash(ctx, "h2"); old.Active(clock) {
			t.Error("an expired token is active")
		}
		if _, err := s.RevokeToken(ctx, live.ID, ""); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.TokenByHash(ctx, "h1"); got.RevokedAt == nil || got.Active(clock) {
			t.Errorf("revoked token = %+v", got)
		}
		if list, _ := s.ListTokens(ctx); len(list) != 2 {
			t.Errorf("list = %d tokens, want 2 (revoked ones stay listed)", len(list))
		}
	})
}
