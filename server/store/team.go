package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// DefaultTeam owns what was made without naming a team.
const DefaultTeam = access.DefaultTeam

// Team is a row of the teams table: a name that owns clusters and
// credentials, and whose members have a role on them.
type Team struct {
	bun.BaseModel `bun:"table:teams" json:"-"`

	Name      string    `bun:"name,pk" json:"name"`
	CreatedAt time.Time `bun:"created_at" json:"created_at"`
}

// TeamMember is a row of team_members: User's Role on Team. Source is
// "local" for a membership an administrator gave, "oidc" for one the
// identity provider's groups gave (replaced at each single sign-on).
type TeamMember struct {
	bun.BaseModel `bun:"table:team_members" json:"-"`

	Team      string      `bun:"team,pk" json:"team"`
	UserID    string      `bun:"user_id,pk" json:"user_id"`
	Role      access.Role `bun:"role" json:"role"`
	Source    string      `bun:"source" json:"source"`
	CreatedAt time.Time   `bun:"created_at" json:"created_at"`
}

// Where a membership came from.
const (
	MemberSourceLocal = "local"
	MemberSourceOIDC  = "oidc"
)

// TeamSummary is a team with how much it holds.
type TeamSummary struct {
	Team
	Members     int `bun:"members" json:"members"`
	Clusters    int `bun:"clusters" json:"clusters"`
	Credentials int `bun:"credentials" json:"credentials"`
}

// CreateTeam inserts a team, with the audit events in its transaction. A
// team of that name already there is a *ConflictError.
func (s *Store) CreateTeam(ctx context.Context, name string, audit ...*AuditEvent) (*Team, error) {
	t := &Team{Name: name, CreatedAt: s.now()}
	err := s.withAudit(ctx, audit, name, func(ctx context.Context, db bun.IDB) error {
		exists, err := db.NewSelect().Model((*Team)(nil)).Where("name = ?", name).Exists(ctx)
		if err != nil {
			return err
		}
		if exists {
			return &ConflictError{Field: "name", Message: fmt.Sprintf("a team named %q already exists", name)}
		}
		_, err = db.NewInsert().Model(t).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create team %q: %w", name, err)
	}
	return t, nil
}

// ListTeams returns teams by name with their counts; names, when not nil,
// limits them to those.
func (s *Store) ListTeams(ctx context.Context, names []string) ([]TeamSummary, error) {
	out := []TeamSummary{}
	if names != nil && len(names) == 0 {
		return out, nil
	}
	q := s.db.NewSelect().TableExpr("teams AS t").ColumnExpr("t.name, t.created_at").
		ColumnExpr("(SELECT count(*) FROM team_members m WHERE m.team = t.name) AS members").
		ColumnExpr("(SELECT count(*) FROM clusters c WHERE c.team = t.name) AS clusters").
		ColumnExpr("(SELECT count(*) FROM cloud_credentials k WHERE k.team = t.name) AS credentials").
		OrderExpr("t.name")
	if names != nil {
		q = q.Where("t.name IN (?)", bun.List(names))
	}
	if err := q.Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	return out, nil
}

// GetTeam returns one team.
func (s *Store) GetTeam(ctx context.Context, name string) (*Team, error) {
	t := new(Team)
	if err := scanOne(ctx, s.db.NewSelect().Model(t).Where("name = ?", name), fmt.Sprintf("team %q", name)); err != nil {
		return nil, err
	}
	return t, nil
}

// DeleteTeam deletes a team and its memberships. The default team, and a
// team that still owns clusters or credentials, are a *ConflictError
// (the database's references decide the second, whatever was checked).
func (s *Store) DeleteTeam(ctx context.Context, name string, audit ...*AuditEvent) error {
	if name == DefaultTeam {
		return &ConflictError{Field: "name", Message: "the default team owns what is made without a team; it cannot be deleted"}
	}
	err := s.withAudit(ctx, audit, name, func(ctx context.Context, db bun.IDB) error {
		for _, t := range []struct{ table, what string }{{"clusters", "clusters"}, {"cloud_credentials", "cloud credentials"}} {
			n, err := db.NewSelect().TableExpr(t.table).Where("team = ?", name).Count(ctx)
			if err != nil {
				return err
			}
			if n > 0 {
				return &ConflictError{Field: "team", Message: fmt.Sprintf("team %q still owns %d %s: move or remove them first", name, n, t.what)}
			}
		}
		res, err := db.NewDelete().Model((*Team)(nil)).Where("name = ?", name).Exec(ctx)
		if isForeignKeyViolation(err) {
			return &ConflictError{Field: "team", Message: fmt.Sprintf("team %q came to own something while it was being deleted; look again", name), cause: err}
		}
		return oneRow(res, err, "delete", fmt.Sprintf("team %q", name))
	})
	if err != nil {
		return fmt.Errorf("delete team %q: %w", name, err)
	}
	return nil
}

// SetMember gives user a role on team (replacing any role they had
// there), recorded as given by source.
func (s *Store) SetMember(ctx context.Context, m TeamMember, audit ...*AuditEvent) error {
	m.CreatedAt = s.now()
	err := s.withAudit(ctx, audit, m.UserID, func(ctx context.Context, db bun.IDB) error {
		return setMember(ctx, db, &m)
	})
	if err != nil {
		return fmt.Errorf("make user %q %s of team %q: %w", m.UserID, m.Role, m.Team, err)
	}
	return nil
}

func setMember(ctx context.Context, db bun.IDB, m *TeamMember) error {
	_, err := db.NewInsert().Model(m).
		On("CONFLICT (team, user_id) DO UPDATE").Set("role = EXCLUDED.role").Set("source = EXCLUDED.source").Exec(ctx)
	if isForeignKeyViolation(err) {
		return fmt.Errorf("%w: the team or the user does not exist", ErrNotFound)
	}
	return err
}

// RemoveMember ends user's membership of team.
func (s *Store) RemoveMember(ctx context.Context, team, userID string, audit ...*AuditEvent) error {
	err := s.withAudit(ctx, audit, userID, func(ctx context.Context, db bun.IDB) error {
		res, err := db.NewDelete().Model((*TeamMember)(nil)).Where("team = ? AND user_id = ?", team, userID).Exec(ctx)
		return oneRow(res, err, "remove", fmt.Sprintf("membership of user %q in team %q", userID, team))
	})
	if err != nil {
		return fmt.Errorf("remove user %q from team %q: %w", userID, team, err)
	}
	return nil
}

// MemberView is a membership with the user's name.
type MemberView struct {
	TeamMember
	Username string `bun:"username" json:"username"`
}

// MembersOf lists team's members by username.
func (s *Store) MembersOf(ctx context.Context, team string) ([]MemberView, error) {
	out := []MemberView{}
	err := s.db.NewSelect().Model(&out).ModelTableExpr("team_members AS team_member").
		ColumnExpr("team_member.*, u.username").Join("JOIN users AS u ON u.id = team_member.user_id").
		Where("team_member.team = ?", team).OrderExpr("u.username").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the members of team %q: %w", team, err)
	}
	return out, nil
}

// TeamsOf returns user's memberships by team name.
func (s *Store) TeamsOf(ctx context.Context, userID string) ([]TeamMember, error) {
	out := []TeamMember{}
	if err := s.db.NewSelect().Model(&out).Where("user_id = ?", userID).OrderExpr("team").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list the teams of user %q: %w", userID, err)
	}
	return out, nil
}

// ReplaceExternalMemberships makes user's memberships from the identity
// provider exactly roles (team → role), in one transaction: those the
// groups no longer give go, the rest are set. Memberships an administrator
// gave (source local) stay as they are.
func (s *Store) ReplaceExternalMemberships(ctx context.Context, userID string, roles map[string]access.Role) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var local []string
		if err := tx.NewSelect().Model((*TeamMember)(nil)).Column("team").
			Where("user_id = ? AND source = ?", userID, MemberSourceLocal).Scan(ctx, &local); err != nil {
			return err
		}
		q := tx.NewDelete().Model((*TeamMember)(nil)).Where("user_id = ? AND source = ?", userID, MemberSourceOIDC)
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		for team, role := range roles {
			if slices.Contains(local, team) {
				continue
			}
			m := &TeamMember{Team: team, UserID: userID, Role: role, Source: MemberSourceOIDC, CreatedAt: s.now()}
			if err := setMember(ctx, tx, m); err != nil {
				if errors.Is(err, ErrNotFound) {
					return fmt.Errorf("team %q, which a group mapping names, does not exist: create it (kubeopera teams create %s)", team, team)
				}
				return err
			}
		}
		return nil
	})
}

// Placement is where a cluster or credential stands for a caller: the
// team that owns it and the caller's role in that team ("" when not a
// member).
type Placement struct {
	Team   string
	Member access.Role
}

// ClusterPlacement returns the team of the cluster with the given ID and
// userID's role in it, in one statement.
func (s *Store) ClusterPlacement(ctx context.Context, id, userID string) (Placement, error) {
	return s.placement(ctx, "clusters", "cluster", id, userID)
}

// CredentialPlacement is ClusterPlacement for a cloud credential.
func (s *Store) CredentialPlacement(ctx context.Context, id, userID string) (Placement, error) {
	return s.placement(ctx, "cloud_credentials", "credential", id, userID)
}

func (s *Store) placement(ctx context.Context, table, what, id, userID string) (Placement, error) {
	var rows []struct {
		Team string  `bun:"team"`
		Role *string `bun:"role"`
	}
	err := s.db.NewSelect().TableExpr(table+" AS x").ColumnExpr("x.team, m.role").
		Join("LEFT JOIN team_members AS m ON m.team = x.team AND m.user_id = ?", userID).
		Where("x.id = ?", id).Limit(1).Scan(ctx, &rows)
	if err != nil {
		return Placement{}, fmt.Errorf("look up the team of %s %q: %w", what, id, err)
	}
	if len(rows) == 0 {
		return Placement{}, fmt.Errorf("%s %q: %w", what, id, ErrNotFound)
	}
	p := Placement{Team: rows[0].Team}
	if rows[0].Role != nil {
		p.Member = access.Role(*rows[0].Role)
	}
	return p, nil
}

// MemberRole returns userID's role in team; "" when not a member.
func (s *Store) MemberRole(ctx context.Context, team, userID string) (access.Role, error) {
	var roles []string
	err := s.db.NewSelect().Model((*TeamMember)(nil)).Column("role").
		Where("team = ? AND user_id = ?", team, userID).Scan(ctx, &roles)
	if err != nil || len(roles) == 0 {
		return access.Anonymous, err
	}
	return access.Role(roles[0]), nil
}
