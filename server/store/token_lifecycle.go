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
	if err := s.selectTokens(&out).Order("created_at ASC", "id ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list API tokens: %w", err)
	}
	return out, nil
}

// ListUserTokens returns the login tokens of the user with ID userID,
// revoked and expired ones included, oldest first.
func (s *Store) ListUserTokens(ctx context.Context, userID string) ([]Token, error) {
	var out []Token
	if err := s.selectTokens(&out).Where("user_id = ?", userID).Order("created_at ASC", "id ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list the API tokens of user %q: %w", userID, err)
	}
	return out, nil
}

// RevokeToken revokes the token whose ID is id; a name is never a key, so
// the answer is never ambiguous. Revoking a revoked token keeps its first
// revocation time. With userID set, only that user's token is found.
// ErrNotFound when there is none. The audit events, if any, are stored in
// the same transaction with the token's ID as their target.
func (s *Store) RevokeToken(ctx context.Context, id, userID string, audit ...*AuditEvent) (*Token, error) {
	t := new(Token)
	err := s.withAudit(ctx, audit, id, func(ctx context.Context, db bun.IDB) error {
		q := db.NewSelect().Model(t).Where("id = ?", id)
		if userID != "" {
			q = q.Where("user_id = ?", userID)
		}
		if err := scanOne(ctx, q, fmt.Sprintf("API token %q", id)); err != nil {
			return err
		}
		if t.RevokedAt != nil {
			return nil
		}
		at := s.now()
		if _, err := db.NewUpdate().Model((*Token)(nil)).Set("revoked_at = ?", at).
			Where("id = ? AND revoked_at IS NULL", t.ID).Exec(ctx); err != nil {
			return fmt.Errorf("revoke API token %q: %w", id, err)
		}
		t.RevokedAt = &at
		_, err := revokeIssuedFrom(ctx, db, []string{ParentToken(t.ID)}, at)
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ParentToken is the Token.Parent of a token issued with the API token
// whose ID is id.
func ParentToken(id string) string { return "token:" + id }

// ParentSession is the Token.Parent of a token issued in the session whose
// ID hash is idHash.
func ParentSession(idHash string) string { return "session:" + idHash }

// revokeIssuedFrom revokes, in db, every active token issued from one of
// parents, then every token issued from those, and so on, and returns how
// many it revoked.
func revokeIssuedFrom(ctx context.Context, db bun.IDB, parents []string, at time.Time) (int, error) {
	total := 0
	for len(parents) > 0 {
		var ids []string
		if err := db.NewSelect().Model((*Token)(nil)).Column("id").
			Where("parent IN (?) AND revoked_at IS NULL", bun.List(parents)).Scan(ctx, &ids); err != nil {
			return total, fmt.Errorf("find the tokens issued from %s: %w", parents[0], err)
		}
		if len(ids) == 0 {
			break
		}
		if _, err := db.NewUpdate().Model((*Token)(nil)).Set("revoked_at = ?", at).
			Where("id IN (?) AND revoked_at IS NULL", bun.List(ids)).Exec(ctx); err != nil {
			return total, fmt.Errorf("revoke the tokens issued from %s: %w", parents[0], err)
		}
		total += len(ids)
		parents = parents[:0]
		for _, id := range ids {
			parents = append(parents, ParentToken(id))
		}
	}
	return total, nil
}

// revokeUserTokens revokes every active token of the user with ID userID,
// in db (the transaction of the change that calls for it).
func revokeUserTokens(ctx context.Context, db bun.IDB, userID string, at time.Time) (int, error) {
	res, err := db.NewUpdate().Model((*Token)(nil)).Set("revoked_at = ?", at).
		Where("user_id = ? AND revoked_at IS NULL", userID).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("revoke the API tokens of user %q: %w", userID, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
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
