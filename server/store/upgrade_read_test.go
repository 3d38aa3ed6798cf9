package store

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// readThroughStore finds every fixture row with the store's own reads and
// compares the columns of tables (the landed schema's), so a column added
// since may hold anything, but no landed one may differ.
func (f fixture) readThroughStore(ctx context.Context, t *testing.T, s *Store, tables map[string][]string) {
	t.Helper()
	for _, want := range f.credentials {
		got, err := s.GetCredential(ctx, want.ID)
		sameColumns(t, "credential "+want.ID, tables["cloud_credentials"], got, err, want)
	}
	for _, want := range f.clusters {
		got, err := s.GetCluster(ctx, want.ID)
		sameColumns(t, "cluster "+want.ID, tables["clusters"], got, err, want)
	}
	for _, want := range f.users {
		got, err := s.UserByUsername(ctx, want.Username)
		sameColumns(t, "user "+want.Username, tables["users"], got, err, want)
	}
	for _, want := range f.sessions {
		// A second after the last use: the session is live and not touched.
		got, user, err := s.UseSession(ctx, want.IDHash, want.LastSeenAt.Add(time.Second), time.Hour)
		sameColumns(t, "session of "+want.UserID, tables["sessions"], got, err, want)
		if err == nil && user.ID != want.UserID {
			t.Errorf("session of %s: UseSession returned user %s", want.UserID, user.ID)
		}
	}
	for _, want := range f.tokens {
		got, err := s.TokenByHash(ctx, want.Hash)
		sameColumns(t, "token "+want.ID, tables["api_tokens"], got, err, want)
	}
	for _, want := range f.audit {
		got, err := s.GetAuditEvent(ctx, want.ID)
		sameColumns(t, "audit event "+want.ID, tables["audit_events"], got, err, want)
	}
	counts, err := s.AuditCounts(ctx, f.counts[0].Hour)
	if len(counts) != len(f.counts) {
		t.Errorf("AuditCounts: %d rows, %v; want %d", len(counts), err, len(f.counts))
	}
	for _, want := range f.counts {
		i := slices.IndexFunc(counts, func(c AuditCount) bool { return c.Method == want.Method && c.Hour.Equal(want.Hour) })
		got := &AuditCount{}
		if i >= 0 {
			got = &counts[i]
		}
		sameColumns(t, "audit count "+want.Method, tables["audit_counts"], got, err, want)
	}
	for _, want := range f.counters {
		got := new(signInCounter)
		err := s.db.NewSelect().Model(got).Where("subject = ?", want.Subject).Scan(ctx)
		sameColumns(t, "sign-in counter "+want.Subject, tables["sign_in_failures"], got, err, want)
	}
	got, created, err := s.ClaimSetupSecret(ctx, &SetupSecret{Ciphertext: []byte("a newer secret"), KeyID: "other"})
	if created {
		t.Error("ClaimSetupSecret stored a new setup secret over the landed one")
	}
	sameColumns(t, "setup secret", tables["setup_secret"], got, err, f.secret)
}

// sameColumns compares the fields of got and want (structs or pointers to
// them) whose bun column is one of cols: times by instant, pointers by
// what they point at. A column no field maps to fails the test, since
// then the store could not read it.
func sameColumns(t *testing.T, what string, cols []string, got any, err error, want any) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	gv, wv := reflect.Indirect(reflect.ValueOf(got)), reflect.Indirect(reflect.ValueOf(want))
	seen := map[string]bool{}
	for i := 0; i < gv.NumField(); i++ {
		field := gv.Type().Field(i)
		col, _, _ := strings.Cut(field.Tag.Get("bun"), ",")
		if field.Anonymous || !slices.Contains(cols, col) {
			continue
		}
		seen[col] = true
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if !sameValue(g, w) {
			t.Errorf("%s: column %s is %s, want %s", what, col, show(g), show(w))
		}
	}
	for _, col := range cols {
		if !seen[col] {
			t.Errorf("%s: column %s has no field in %T, so the store cannot read it", what, col, got)
		}
	}
}

func sameValue(got, want any) bool {
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	if g.Kind() == reflect.Pointer {
		if g.IsNil() || w.IsNil() {
			return g.IsNil() == w.IsNil()
		}
		return sameValue(g.Elem().Interface(), w.Elem().Interface())
	}
	if gt, ok := got.(time.Time); ok {
		return gt.Equal(want.(time.Time))
	}
	return reflect.DeepEqual(got, want)
}

func show(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "nil"
		}
		return show(rv.Elem().Interface())
	}
	if tm, ok := v.(time.Time); ok {
		return tm.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("%#v", v)
}
