package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ErrSessionExpired is returned by UseSession for a session past its idle
// or absolute expiry; the session is deleted.
var ErrSessionExpired = errors.New("session expired")

// sessionTouchEvery limits writes: a session in use has last_seen_at moved
// on at most this often, so a dashboard polling every few seconds does not
// write on every request. The idle expiry is coarse by as much.
const sessionTouchEvery = 30 * time.Second

// Session is a row of the sessions table: a signed-in browser.
type Session struct {
	bun.BaseModel `bun:"table:sessions" json:"-"`

	// IDHash is the hex SHA-256 of the cookie value.
	IDHash string `bun:"id_hash,pk"`
	UserID string `bun:"user_id"`
	// CSRFToken must accompany every mutating request of the session.
	CSRFToken  string    `bun:"csrf_token"`
	CreatedAt  time.Time `bun:"created_at"`
	LastSeenAt time.Time `bun:"last_seen_at"`
	// ExpiresAt is the absolute expiry, whatever the activity.
	ExpiresAt time.Time `bun:"expires_at"`
}

// CreateSession inserts sess, whose times the caller sets, and deletes the
// sessions that expired before its CreatedAt, so the table does not grow
// with abandoned ones.
func (s *Store) CreateSession(ctx context.Context, sess *Session) error {
	if _, err := s.db.NewInsert().Model(sess).Exec(ctx); err != nil {
		return fmt.Errorf("create session for user %q: %w", sess.UserID, err)
	}
	if _, err := s.db.NewDelete().Model((*Session)(nil)).Where("expires_at < ?", sess.CreatedAt).Exec(ctx); err != nil {
		return fmt.Errorf("delete expired sessions: %w", err)
	}
	return nil
}

// UseSession returns the session whose IDHash is idHash and its user, as of
// at: a session idle for idle or longer, or past ExpiresAt, is deleted and
// reported as ErrSessionExpired; one never issued or revoked as ErrNotFound.
// A session in use has its LastSeenAt moved to at.
func (s *Store) UseSession(ctx context.Context, idHash string, at time.Time, idle time.Duration) (*Session, *User, error) {
	sess := new(Session)
	if err := scanOne(ctx, s.db.NewSelect().Model(sess).Where("id_hash = ?", idHash), "session"); err != nil {
		return nil, nil, err
	}
	if !at.Before(sess.ExpiresAt) || at.Sub(sess.LastSeenAt) >= idle {
		if err := s.DeleteSession(ctx, idHash); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("session of user %q: %w", sess.UserID, ErrSessionExpired)
	}
	u, err := s.GetUser(ctx, sess.UserID)
	if err != nil {
		return nil, nil, err
	}
	if u.DisabledAt != nil { // disabling deletes sessions too: this is a second guard
		return nil, nil, fmt.Errorf("session of disabled user %q: %w", u.Username, ErrNotFound)
	}
	if at.Sub(sess.LastSeenAt) >= sessionTouchEvery {
		sess.LastSeenAt = at.UTC().Truncate(time.Microsecond)
		if _, err := s.db.NewUpdate().Model(sess).Column("last_seen_at").WherePK().Exec(ctx); err != nil {
			return nil, nil, fmt.Errorf("touch session of user %q: %w", sess.UserID, err)
		}
	}
	return sess, u, nil
}

// DeleteSession revokes the session whose IDHash is idHash, and every
// token issued from it (a kubeconfig downloaded in that session).
func (s *Store) DeleteSession(ctx context.Context, idHash string) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().Model((*Session)(nil)).Where("id_hash = ?", idHash).Exec(ctx)
		if err := oneRow(res, err, "delete session", "session"); err != nil {
			return err
		}
		_, err = revokeIssuedFrom(ctx, tx, []string{ParentSession(idHash)}, s.now())
		return err
	})
}

// UserByUsername returns the user with the given username.
func (s *Store) UserByUsername(ctx context.Context, username string) (*User, error) {
	u := new(User)
	if err := scanOne(ctx, s.db.NewSelect().Model(u).Where("username = ?", username), fmt.Sprintf("user %q", username)); err != nil {
		return nil, err
	}
	return u, nil
}
