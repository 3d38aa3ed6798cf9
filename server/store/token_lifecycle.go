package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ListTokens returns every API token, revoked and expired ones included,
// oldest first. Hashes are loaded but never serialised.
func (s *Store) ListTokens(ctx context.Context) ([]Token, error) {
	var out []Token
	if err := s.db.NewSelect().Model(&out).Order("created_at ASC", "id ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list API tokens: %w", err)
	}
	return out, nil
}

// RevokeToken revokes the token whose ID or name is ref; revoking a
// revoked token keeps its first revocation time. ErrNotFound when there is
// none; a name shared by several tokens is an error asking for the ID.
func (s *Store) RevokeToken(ctx context.Context, ref string) (*Token, error) {
	var matches []Token
	if err := s.db.NewSelect().Model(&matches).Where("id = ? OR name = ?", ref, ref).Scan(ctx); err != nil {
		return nil, fmt.Errorf("find API token %q: %w", ref, err)
	}
	switch {
	case len(matches) == 0:
		return nil, fmt.Errorf("API token %q: %w", ref, ErrNotFound)
	case len(matches) > 1:
		return nil, fmt.Errorf("%d API tokens are named %q: revoke one by its ID (see 'kubeopera tokens list')", len(matches), ref)
	}
	t := matches[0]
	if t.RevokedAt == nil {
		at := s.now()
		if _, err := s.db.NewUpdate().Model((*Token)(nil)).Set("revoked_at = ?", at).
			Where("id = ? AND revoked_at IS NULL", t.ID).Exec(ctx); err != nil {
			return nil, fmt.Errorf("revoke API token %q: %w", ref, err)
		}
		t.RevokedAt = &at
	}
	return &t, nil
}

// TouchTokens records when each token was last used, in one transaction:
// the server batches uses instead of writing on every request. A later
// time never goes backwards.
func (s *Store) TouchTokens(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for id, at := range used {
			at = at.UTC().Truncate(time.Microsecond)
			if _, err := tx.NewUpdate().Model((*Token)(nil)).Set("last_used_at = ?", at).
				Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, at).Exec(ctx); err != nil {
				return fmt.Errorf("record API token use: %w", err)
			}
		}
		return nil
	})
}
