package store

import (
	"context"
	"errors"
	"fmt"
)

// ErrTokenIDTaken is CreateTokenOnce's answer when a token with the ID
// exists already.
var ErrTokenIDTaken = errors.New("a token with this ID exists already")

// CreateTokenOnce inserts the login token t under its given ID, or
// returns ErrTokenIDTaken when a token has that ID: with an ID derived
// from a one-time code, the database's primary key makes the code good
// for one token, however many replicas see it at once.
func (s *Store) CreateTokenOnce(ctx context.Context, t *Token) error {
	if t.ID == "" || t.UserID == "" {
		return fmt.Errorf("create API token %q once: it needs an ID and a user", t.Name)
	}
	t.CreatedAt = s.now()
	if t.ExpiresAt == nil || t.ExpiresAt.After(t.CreatedAt.Add(MaxLoginTokenTTL)) {
		return fmt.Errorf("create API token %q: a login token must expire within %s", t.Name, MaxLoginTokenTTL)
	}
	res, err := s.db.NewInsert().Model(t).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("create API token %q: %w", t.Name, asConflict(err, nil))
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrTokenIDTaken
	}
	return nil
}

// TokenExists reports whether a token with ID id exists, revoked and
// expired ones included.
func (s *Store) TokenExists(ctx context.Context, id string) (bool, error) {
	n, err := s.db.NewSelect().Model((*Token)(nil)).Where("id = ?", id).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("look up API token %s: %w", id, err)
	}
	return n > 0, nil
}
