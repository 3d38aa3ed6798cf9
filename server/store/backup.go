package store

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Backup writes a consistent copy of a SQLite database to the new file
// path while the store stays in use: SQLite's VACUUM INTO reads one
// snapshot, and in WAL mode writers carry on meanwhile. The copy is a
// database Open serves as it is. It holds sealed credentials and password
// hashes, so the file is made readable by its owner only; a file already
// at path is refused, never overwritten. A PostgreSQL database is backed
// up with pg_dump instead (docs/operations.md).
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.dialect != DialectSQLite {
		return fmt.Errorf("back up a PostgreSQL database with pg_dump -Fc (see docs/operations.md), not with KubeOpera")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("back up to %s: the file exists; name a new file", path)
	}
	if err != nil {
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	// VACUUM INTO fills an empty file as it would a new one.
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("back up to %s: %w", path, err)
	}
	return nil
}
