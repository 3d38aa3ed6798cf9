package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// AuditEvent is one mutating API request. It holds no request content.
type AuditEvent struct {
	bun.BaseModel `bun:"table:audit_events"`

	ID string    `bun:"id,pk" json:"id"`
	At time.Time `bun:"at" json:"at"`
	// Actor is the token's or user's name; ActorID its ID ("" when
	// anonymous).
	Actor   string `bun:"actor" json:"actor"`
	ActorID string `bun:"actor_id" json:"actorId"`
	Method  string `bun:"method" json:"method"`
	// Route is the pattern, such as /api/v1/clusters/:id.
	Route string `bun:"route" json:"route"`
	// Target is the ID in the path, or "" when the route has none.
	Target    string `bun:"target" json:"target"`
	Status    int    `bun:"status" json:"status"`
	RequestID string `bun:"request_id" json:"requestId"`
}

// MaxAuditField bounds every text field of a stored audit event: what a
// client sends (a path ID, a sign-in name) is cut to it.
const MaxAuditField = 128

// AddAuditEvent stores e, filling in its ID and time; its text fields are
// cut to MaxAuditField bytes of valid UTF-8 without control characters.
func (s *Store) AddAuditEvent(ctx context.Context, e *AuditEvent) error {
	return addAuditEvent(ctx, s.db, s.now(), e)
}

func addAuditEvent(ctx context.Context, db bun.IDB, at time.Time, e *AuditEvent) error {
	e.ID = uuid.NewString()
	e.At = at
	for _, f := range []*string{&e.Actor, &e.ActorID, &e.Method, &e.Route, &e.Target, &e.RequestID} {
		*f = boundText(*f)
	}
	if _, err := db.NewInsert().Model(e).Exec(ctx); err != nil {
		return fmt.Errorf("record audit event: %w", err)
	}
	return nil
}

// boundText cuts s to MaxAuditField bytes, dropping invalid UTF-8 and
// control characters (NUL among them, which PostgreSQL text refuses).
func boundText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxAuditField {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CountAuditNoise counts one request nobody signed (method and status) in
// the hour of at, instead of storing a row for it.
func (s *Store) CountAuditNoise(ctx context.Context, at time.Time, method string, status int) error {
	c := &AuditCount{Hour: at.UTC().Truncate(time.Hour), Method: boundText(method), Status: status, Count: 1}
	if len(c.Method) > 16 {
		c.Method = "OTHER"
	}
	_, err := s.db.NewInsert().Model(c).On("CONFLICT (hour, method, status) DO UPDATE").
		Set("count = ?TableAlias.count + 1").Exec(ctx)
	if err != nil {
		return fmt.Errorf("count an unsigned request: %w", err)
	}
	return nil
}

// AuditCount is how many unsigned requests of one method got one status
// in one hour.
type AuditCount struct {
	bun.BaseModel `bun:"table:audit_counts"`

	Hour   time.Time `bun:"hour,pk" json:"hour"`
	Method string    `bun:"method,pk" json:"method"`
	Status int       `bun:"status,pk" json:"status"`
	Count  int64     `bun:"count" json:"count"`
}

// AuditCounts returns the counts of unsigned requests from since on,
// newest hour first.
func (s *Store) AuditCounts(ctx context.Context, since time.Time) ([]AuditCount, error) {
	out := []AuditCount{}
	if err := s.db.NewSelect().Model(&out).Where("hour >= ?", since.UTC().Truncate(time.Hour)).
		Order("hour DESC", "method", "status").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list counts of unsigned requests: %w", err)
	}
	return out, nil
}

// AuditFilter selects audit events; empty fields match all.
type AuditFilter struct {
	Actor, Target string
	// Before pages backwards: only events older than this one's position
	// (time, then ID).
	Before *AuditEvent
	// Since and Until bound the event time: at or after Since, before
	// Until; a zero time leaves that side open.
	Since, Until time.Time
	Limit        int
}

// ListAuditEvents returns events newest first.
func (s *Store) ListAuditEvents(ctx context.Context, f AuditFilter) ([]AuditEvent, error) {
	var out []AuditEvent
	q := s.db.NewSelect().Model(&out).Order("at DESC", "id DESC").Limit(int64(f.Limit))
	if f.Actor != "" {
		q = q.Where("actor = ? OR actor_id = ?", f.Actor, f.Actor)
	}
	if f.Target != "" {
		q = q.Where("target = ?", f.Target)
	}
	if !f.Since.IsZero() {
		q = q.Where("at >= ?", f.Since.UTC())
	}
	if !f.Until.IsZero() {
		q = q.Where("at < ?", f.Until.UTC())
	}
	if f.Before != nil {
		q = q.Where("(at < ?) OR (at = ? AND id < ?)", f.Before.At, f.Before.At, f.Before.ID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("list audit events: %w", err)
	}
	return out, nil
}

// GetAuditEvent returns one event.
func (s *Store) GetAuditEvent(ctx context.Context, id string) (*AuditEvent, error) {
	e := new(AuditEvent)
	if err := scanOne(ctx, s.db.NewSelect().Model(e).Where("id = ?", id), fmt.Sprintf("audit event %q", id)); err != nil {
		return nil, err
	}
	return e, nil
}

// AuditSize returns how many audit events are stored and the bytes their
// text fields hold, which is what a flood of requests would grow.
func (s *Store) AuditSize(ctx context.Context) (rows int, textBytes int64, err error) {
	var out struct {
		Rows  int   `bun:"rows"`
		Bytes int64 `bun:"bytes"`
	}
	err = s.db.NewSelect().Model((*AuditEvent)(nil)).
		ColumnExpr("COUNT(*) AS rows").
		ColumnExpr("COALESCE(SUM(LENGTH(id) + LENGTH(actor) + LENGTH(actor_id) + LENGTH(method) + LENGTH(route) + LENGTH(target) + LENGTH(request_id)), 0) AS bytes").
		Scan(ctx, &out)
	if err != nil {
		return 0, 0, fmt.Errorf("measure the audit log: %w", err)
	}
	return out.Rows, out.Bytes, nil
}
