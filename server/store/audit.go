package store

import (
	"context"
	"fmt"
	"time"

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

// AddAuditEvent stores e, filling in its ID and time.
func (s *Store) AddAuditEvent(ctx context.Context, e *AuditEvent) error {
	e.ID = uuid.NewString()
	e.At = s.now()
	if _, err := s.db.NewInsert().Model(e).Exec(ctx); err != nil {
		return fmt.Errorf("record audit event: %w", err)
	}
	return nil
}

// AuditFilter selects audit events; empty fields match all.
type AuditFilter struct {
	Actor, Target string
	// Before pages backwards: only events older than this one's position
	// (time, then ID).
	Before *AuditEvent
	Limit  int
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
