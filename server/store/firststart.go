package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// firstTokenLockKey is the PostgreSQL advisory lock that serialises the
// first admin token between servers starting at once on one database
// ("kubeopera-1st" in ASCII, truncated to fit a bigint).
const firstTokenLockKey int64 = 0x6b7562656f7031

// CreateFirstToken inserts t, as CreateToken does, only while the database
// holds no token at all, and reports whether it did. The count and the
// insert are one transaction that servers take one at a time (an advisory
// lock on PostgreSQL; SQLite's write lock, taken at BEGIN), so of several
// servers starting at once on an empty database exactly one creates it.
func (s *Store) CreateFirstToken(ctx context.Context, t *Token) (created bool, err error) {
	if t.ID == "" {
		t.ID = uuid.NewString()
	}
	t.CreatedAt = s.now()
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if s.dialect == DialectPostgres {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", firstTokenLockKey); err != nil {
				return fmt.Errorf("lock the first token: %w", err)
			}
		}
		n, err := tx.NewSelect().Model((*Token)(nil)).Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		if _, err := tx.NewInsert().Model(t).Exec(ctx); err != nil {
			return asConflict(err, nil)
		}
		created = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("create the first API token %q: %w", t.Name, err)
	}
	return created, nil
}

// SetupSecret is the one row of the setup_secret table: the one-time secret
// that creates the first administrator, sealed with the encryption key.
type SetupSecret struct {
	bun.BaseModel `bun:"table:setup_secret" json:"-"`

	ID         int       `bun:"id,pk"`
	Ciphertext []byte    `bun:"ciphertext"`
	KeyID      string    `bun:"key_id"`
	CreatedAt  time.Time `bun:"created_at"`
}

// ClaimSetupSecret stores sec unless a setup secret is stored already, and
// returns the one stored: sec when created is true, else the one another
// server stored first.
func (s *Store) ClaimSetupSecret(ctx context.Context, sec *SetupSecret) (stored *SetupSecret, created bool, err error) {
	sec.ID, sec.CreatedAt = 1, s.now()
	res, err := s.db.NewInsert().Model(sec).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("store the setup secret: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, false, fmt.Errorf("store the setup secret: %w", err)
	} else if n == 1 {
		return sec, true, nil
	}
	stored = new(SetupSecret)
	if err := scanOne(ctx, s.db.NewSelect().Model(stored).Where("id = 1"), "setup secret"); err != nil {
		return nil, false, err
	}
	return stored, false, nil
}

// DeleteSetupSecret removes the used-up setup secret; none stored is no
// error.
func (s *Store) DeleteSetupSecret(ctx context.Context) error {
	if _, err := s.db.NewDelete().Model((*SetupSecret)(nil)).Where("id = 1").Exec(ctx); err != nil {
		return fmt.Errorf("delete the used setup secret: %w", err)
	}
	return nil
}
