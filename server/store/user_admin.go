package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// userAdminLockKey is the PostgreSQL advisory lock that serialises the
// changes which could remove the last platform admin, so two admins
// disabling each other at once cannot both succeed. SQLite serialises
// writing transactions by itself.
const userAdminLockKey int64 = 0x6b7562656f7075

// ListUsers returns every user, oldest first.
func (s *Store) ListUsers(ctx context.Context) ([]User, error) {
	var out []User
	if err := s.db.NewSelect().Model(&out).Order("created_at ASC", "id ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}

// SetUserDisabled disables or enables the user with ID id. Disabling ends
// the user's sessions and revokes their tokens in the same transaction;
// it is refused (a *ConflictError) for the last enabled platform admin.
func (s *Store) SetUserDisabled(ctx context.Context, id string, disabled bool, audit ...*AuditEvent) error {
	return s.changeUser(ctx, id, disabled, audit, func(ctx context.Context, tx bun.Tx, u *User) error {
		q := tx.NewUpdate().Model((*User)(nil)).Where("id = ?", id)
		if disabled {
			q = q.Set("disabled_at = ?", s.now())
		} else {
			q = q.Set("disabled_at = NULL")
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("change user %q: %w", u.Username, err)
		}
		if !disabled {
			return nil
		}
		return endAccess(ctx, tx, u, s.now)
	})
}

// DeleteUser deletes the user with ID id, ending their sessions and
// revoking their tokens (which stay listed) in the same transaction. The
// last enabled platform admin is not deleted (a *ConflictError).
func (s *Store) DeleteUser(ctx context.Context, id string, audit ...*AuditEvent) error {
	return s.changeUser(ctx, id, true, audit, func(ctx context.Context, tx bun.Tx, u *User) error {
		if err := endAccess(ctx, tx, u, s.now); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*User)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("delete user %q: %w", u.Username, err)
		}
		return nil
	})
}

// ResetPassword replaces the password hash of the user with ID id and
// makes them choose a new one at the next sign-in; their sessions end and
// their tokens are revoked in the same transaction.
func (s *Store) ResetPassword(ctx context.Context, id, passwordHash string, audit ...*AuditEvent) error {
	return s.changeUser(ctx, id, false, audit, func(ctx context.Context, tx bun.Tx, u *User) error {
		if _, err := tx.NewUpdate().Model((*User)(nil)).Set("password_hash = ?", passwordHash).
			Set("must_change_password = TRUE").Where("id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("reset the password of user %q: %w", u.Username, err)
		}
		return endAccess(ctx, tx, u, s.now)
	})
}

// SetOwnPassword replaces the password hash of the user with ID id, who
// proved the old one, and clears MustChangePassword.
func (s *Store) SetOwnPassword(ctx context.Context, id, passwordHash string) error {
	res, err := s.db.NewUpdate().Model((*User)(nil)).Set("password_hash = ?", passwordHash).
		Set("must_change_password = FALSE").Where("id = ?", id).Exec(ctx)
	return oneRow(res, err, fmt.Sprintf("change the password of user %q", id), fmt.Sprintf("user %q", id))
}

// EndUserSessions ends every session of the user with ID id and revokes
// their login tokens, in one transaction, and says how many of each.
func (s *Store) EndUserSessions(ctx context.Context, id string, audit ...*AuditEvent) (sessions, tokens int, err error) {
	err = s.changeUser(ctx, id, false, audit, func(ctx context.Context, tx bun.Tx, u *User) error {
		sessions, tokens, err = endAccessCounted(ctx, tx, u, s.now)
		return err
	})
	return sessions, tokens, err
}

// changeUser runs change on the user with ID id in a transaction with its
// audit events (target id). With removesAdmin, it first refuses to take
// away the last enabled platform admin.
func (s *Store) changeUser(ctx context.Context, id string, removesAdmin bool, audit []*AuditEvent,
	change func(context.Context, bun.Tx, *User) error) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if removesAdmin && s.dialect == DialectPostgres {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", userAdminLockKey); err != nil {
				return fmt.Errorf("lock user changes: %w", err)
			}
		}
		u := new(User)
		if err := scanOne(ctx, tx.NewSelect().Model(u).Where("id = ?", id), fmt.Sprintf("user %q", id)); err != nil {
			return err
		}
		if removesAdmin && u.Role == access.PlatformAdmin && u.DisabledAt == nil {
			others, err := tx.NewSelect().Model((*User)(nil)).Where("role = ?", access.PlatformAdmin).
				Where("disabled_at IS NULL").Where("id <> ?", id).Count(ctx)
			if err != nil {
				return fmt.Errorf("count platform admins: %w", err)
			}
			if others == 0 {
				return &ConflictError{Field: "role", Message: fmt.Sprintf(
					"%q is the last enabled platform admin: make or enable another platform admin first", u.Username)}
			}
		}
		if err := change(ctx, tx, u); err != nil {
			return err
		}
		for _, e := range audit {
			e.Target = id
			if err := addAuditEvent(ctx, tx, s.now(), e); err != nil {
				return err
			}
		}
		return nil
	})
}

// endAccess ends the sessions and revokes the tokens of u in tx.
func endAccess(ctx context.Context, tx bun.Tx, u *User, now func() time.Time) error {
	_, _, err := endAccessCounted(ctx, tx, u, now)
	return err
}

func endAccessCounted(ctx context.Context, tx bun.Tx, u *User, now func() time.Time) (sessions, tokens int, err error) {
	res, err := tx.NewDelete().Model((*Session)(nil)).Where("user_id = ?", u.ID).Exec(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("end the sessions of user %q: %w", u.Username, err)
	}
	n, _ := res.RowsAffected()
	tokens, err = revokeUserTokens(ctx, tx, u.ID, now())
	return int(n), tokens, err
}
