package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// newBackupCommand copies a SQLite database while the server may be using
// it. It never migrates: a backup taken before an upgrade must be the old
// schema, whichever kubeopera binary takes it.
func newBackupCommand() *cobra.Command {
	var dataDir, database string
	cmd := &cobra.Command{
		Use:   "backup FILE",
		Short: "Copy the SQLite database to a new FILE while the server runs (PostgreSQL: pg_dump -Fc)",
		Long: "Copy the server's SQLite database to FILE with SQLite's online backup (VACUUM INTO): one\n" +
			"consistent snapshot, taken while the server keeps writing; FILE is made 0600 and must not exist.\n" +
			"Keep the encryption key too (data/encryption.key or KUBEOPERA_ENCRYPTION_KEY): without it the\n" +
			"stored credentials cannot be opened. Back up PostgreSQL with pg_dump -Fc (docs/operations.md).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dsn := database
			if dsn == "" {
				dsn = filepath.Join(dataDir, "kubeopera.db")
			}
			if store.IsPostgresDSN(dsn) {
				return &exitError{code: exitUsage, err: fmt.Errorf("--database is PostgreSQL: back it up with " +
					"pg_dump -Fc --dbname=URL --file=FILE and restore with pg_restore (docs/operations.md)")}
			}
			if _, err := os.Stat(dsn); err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("no SQLite database at %s: name it with --data-dir or --database", dsn)}
			}
			st, err := store.Open(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Backup(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "backed up %s to %s; keep the encryption key with it\n", dsn, args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", envOr("KUBEOPERA_DATA_DIR", "data"), "the server's data directory, holding kubeopera.db (env KUBEOPERA_DATA_DIR)")
	cmd.Flags().StringVar(&database, "database", os.Getenv("KUBEOPERA_DATABASE_URL"), "a SQLite file path; default <data-dir>/kubeopera.db (env KUBEOPERA_DATABASE_URL)")
	return cmd
}
