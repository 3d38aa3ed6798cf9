package store

import (
	"context"
	"fmt"
	"regexp"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// This migration makes the database, not a check before a write, keep a
// credential from being deleted while something references it:
//   - clusters.credential_id references cloud_credentials (id), so a
//     cluster row cannot be inserted for a credential deleted a moment
//     before, nor a credential deleted under a cluster inserted a moment
//     before (PostgreSQL locks the referenced row; SQLite writes one at a
//     time and checks at the statement);
//   - cloud_credentials.source_id is the credential an assume_role (or
//     any other kind with a credential-reference field) is made from, a
//     column of its own with the same reference: before, it lived only in
//     the sealed payload, which the database cannot see. The server fills
//     it in for existing rows at start (it needs the key to open them).
//
// Cluster rows that already name a deleted credential (the race this
// closes) would fail the new reference, so theirs is cleared first.
// SQLite cannot add a reference to an existing column: its table is
// rebuilt (sqliteRebuild).
func registerCredentialReferences(m *migrate.Migrations) {
	m.MustRegister(credentialReferencesUp, credentialReferencesDown)
}

var credentialIDColumnRE = regexp.MustCompile(`(credential_id\s+TEXT)(\s*,)`)

func credentialReferencesUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			"UPDATE clusters SET credential_id = NULL WHERE credential_id IS NOT NULL AND " +
				"credential_id NOT IN (SELECT id FROM cloud_credentials)",
			"ALTER TABLE cloud_credentials ADD COLUMN source_id TEXT REFERENCES cloud_credentials (id)",
			"CREATE INDEX cloud_credentials_source_id_idx ON cloud_credentials (source_id)",
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		if tx.Dialect().Name().String() != "sqlite" {
			q := "ALTER TABLE clusters ADD CONSTRAINT clusters_credential_id_fkey " +
				"FOREIGN KEY (credential_id) REFERENCES cloud_credentials (id)"
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
			return nil
		}
		return sqliteRebuild(ctx, tx, "clusters", func(def string) string {
			return credentialIDColumnRE.ReplaceAllString(def, "$1 REFERENCES cloud_credentials (id)$2")
		})
	})
}

func credentialReferencesDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if tx.Dialect().Name().String() != "sqlite" {
			if _, err := tx.ExecContext(ctx, "ALTER TABLE clusters DROP CONSTRAINT clusters_credential_id_fkey"); err != nil {
				return err
			}
		} else if err := sqliteRebuild(ctx, tx, "clusters", func(def string) string {
			return regexp.MustCompile(` REFERENCES cloud_credentials \(id\)`).ReplaceAllString(def, "")
		}); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DROP INDEX cloud_credentials_source_id_idx"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "ALTER TABLE cloud_credentials DROP COLUMN source_id")
		return err
	})
}
