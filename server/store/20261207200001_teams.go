package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// This migration brings teams: a team owns clusters and cloud
// credentials, and a user has a role on each team they belong to
// (access.TeamRoles). It
//   - creates teams, with the team "default" that owns everything made
//     before (and everything made without naming a team), and
//     team_members;
//   - adds clusters.team and cloud_credentials.team, references to teams,
//     so the database keeps a team that owns something from going;
//   - widens users.role to the global role "member": a user who sees and
//     does only what their teams give. Existing users keep their roles
//     (a global viewer still reads every team).
//
// It is Go because SQLite can neither add a reference with a default nor
// change a CHECK in place: there users, clusters and cloud_credentials are
// rebuilt, with foreign keys off on the migration's own connection (the
// procedure SQLite documents: other tables reference users and
// cloud_credentials, and dropping them with the keys on would cascade),
// then checked with PRAGMA foreign_key_check before the keys go back on.
func registerTeams(m *migrate.Migrations) {
	m.MustRegister(teamsUp, teamsDown)
}

const (
	oldUserRoles = "CHECK (role IN ('platform-admin', 'viewer'))"
	newUserRoles = "CHECK (role IN ('platform-admin', 'viewer', 'member'))"
	teamColumn   = "team VARCHAR(63) NOT NULL DEFAULT 'default'"
)

var teamColumnRE = regexp.MustCompile(`(team VARCHAR\(63\) NOT NULL DEFAULT 'default')`)

var teamsStatements = []string{
	`CREATE TABLE teams (
	name       VARCHAR(63) NOT NULL PRIMARY KEY,
	created_at TIMESTAMPTZ NOT NULL
)`,
	`CREATE TABLE team_members (
	team       VARCHAR(63) NOT NULL REFERENCES teams (name) ON DELETE CASCADE,
	user_id    TEXT        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	role       TEXT        NOT NULL,
	source     TEXT        NOT NULL DEFAULT 'local',
	created_at TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (team, user_id)
)`,
	"CREATE INDEX team_members_user_id_idx ON team_members (user_id)",
	"ALTER TABLE clusters ADD COLUMN " + teamColumn,
	"ALTER TABLE cloud_credentials ADD COLUMN " + teamColumn,
}

func teamsUp(ctx context.Context, db *bun.DB) error {
	if db.Dialect().Name().String() != "sqlite" {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if err := createTeams(ctx, tx); err != nil {
				return err
			}
			return execAll(ctx, tx,
				"ALTER TABLE clusters ADD CONSTRAINT clusters_team_fkey FOREIGN KEY (team) REFERENCES teams (name)",
				"ALTER TABLE cloud_credentials ADD CONSTRAINT cloud_credentials_team_fkey FOREIGN KEY (team) REFERENCES teams (name)",
				"ALTER TABLE users DROP CONSTRAINT users_role_check",
				"ALTER TABLE users ADD CONSTRAINT users_role_check "+newUserRoles,
				"CREATE INDEX clusters_team_idx ON clusters (team, created_at, name)")
		})
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return err
	}
	err = conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := createTeams(ctx, tx); err != nil {
			return err
		}
		addReference := func(def string) string {
			return teamColumnRE.ReplaceAllString(def, "$1 REFERENCES teams (name)")
		}
		for _, t := range []string{"clusters", "cloud_credentials"} {
			if err := sqliteRebuild(ctx, tx, t, addReference); err != nil {
				return err
			}
		}
		if err := sqliteRebuild(ctx, tx, "users", func(def string) string {
			return strings.Replace(def, oldUserRoles, newUserRoles, 1)
		}); err != nil {
			return err
		}
		if err := execAll(ctx, tx, "CREATE INDEX clusters_team_idx ON clusters (team, created_at, name)"); err != nil {
			return err
		}
		return foreignKeysHold(ctx, tx)
	})
	if _, onErr := conn.ExecContext(ctx, "PRAGMA foreign_keys = ON"); err == nil {
		err = onErr
	}
	return err
}

// createTeams makes the tables and the default team.
func createTeams(ctx context.Context, tx bun.Tx) error {
	if err := execAll(ctx, tx, teamsStatements...); err != nil {
		return err
	}
	_, err := tx.NewInsert().Model(&Team{Name: DefaultTeam, CreatedAt: now()}).Exec(ctx)
	if err != nil {
		return fmt.Errorf("create the default team: %w", err)
	}
	return nil
}

// foreignKeysHold fails when a rebuild left a row whose reference points
// nowhere.
func foreignKeysHold(ctx context.Context, tx bun.Tx) error {
	rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		return fmt.Errorf("rebuilding for teams left a row whose reference points nowhere")
	}
	return rows.Err()
}

func execAll(ctx context.Context, tx bun.Tx, stmts ...string) error {
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", strings.SplitN(q, "\n", 2)[0], err)
		}
	}
	return nil
}

// teamsDown drops what teamsUp added on PostgreSQL. A "member" user is
// made a viewer, the nearest role the old schema knows; the widened check
// stays. SQLite can drop neither a referenced table nor a referencing
// column, so there the tables and columns stay (unused by the older
// server); restore the backup taken before the upgrade to be rid of them.
func teamsDown(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		stmts := []string{"UPDATE users SET role = 'viewer' WHERE role = 'member'"}
		if tx.Dialect().Name().String() != "sqlite" {
			stmts = append(stmts, "DROP INDEX clusters_team_idx",
				"ALTER TABLE clusters DROP COLUMN team", "ALTER TABLE cloud_credentials DROP COLUMN team",
				"DROP TABLE team_members", "DROP TABLE teams")
		}
		return execAll(ctx, tx, stmts...)
	})
}
