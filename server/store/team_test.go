package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/access"
)

func TestTeamsOwnClustersAndMembersHaveRoles(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if _, err := s.CreateTeam(ctx, "team-a"); err != nil {
			t.Fatal(err)
		}
		var conflict *ConflictError
		if _, err := s.CreateTeam(ctx, "team-a"); !errors.As(err, &conflict) {
			t.Errorf("a second team-a: %v, want a ConflictError", err)
		}
		u := User{Email: "ann@example.com", Username: "ann", PasswordHash: "x", Role: access.Member}
		if err := s.CreateUser(ctx, &u); err != nil {
			t.Fatal(err)
		}
		a := Cluster{Name: "a1", Team: "team-a", Provider: "local", Source: SourceProvisioned}
		d := Cluster{Name: "d1", Provider: "local", Source: SourceProvisioned}
		for _, c := range []*Cluster{&a, &d} {
			if err := s.CreateCluster(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		if d.Team != DefaultTeam {
			t.Errorf("a cluster made without a team is in %q, want %q", d.Team, DefaultTeam)
		}
		if err := s.CreateCluster(ctx, &Cluster{Name: "x", Team: "nope", Provider: "local", Source: SourceProvisioned}); !errors.As(err, &conflict) || conflict.Field != "team" {
			t.Errorf("a cluster of a team that does not exist: %v, want a ConflictError on team", err)
		}
		p, err := s.ClusterPlacement(ctx, a.ID, u.ID)
		if err != nil || p != (Placement{Team: "team-a"}) {
			t.Errorf("placement before membership = %+v, %v", p, err)
		}
		if err := s.SetMember(ctx, TeamMember{Team: "team-a", UserID: u.ID, Role: access.Operator, Source: MemberSourceLocal}); err != nil {
			t.Fatal(err)
		}
		if p, err := s.ClusterPlacement(ctx, a.ID, u.ID); err != nil || p != (Placement{Team: "team-a", Member: access.Operator}) {
			t.Errorf("placement as operator = %+v, %v", p, err)
		}
		if _, err := s.ClusterPlacement(ctx, "missing", u.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("placement of a missing cluster: %v, want ErrNotFound", err)
		}
		page, err := s.ListClusterPage(ctx, ClusterFilter{MemberOf: u.ID})
		if err != nil || len(page.Clusters) != 1 || page.Clusters[0].ID != a.ID {
			t.Errorf("ann's page = %+v, %v; want only a1", page.Clusters, err)
		}
		if err := s.DeleteTeam(ctx, "team-a"); !errors.As(err, &conflict) {
			t.Errorf("deleting a team that owns a cluster: %v, want a ConflictError", err)
		}
		if err := s.DeleteTeam(ctx, DefaultTeam); !errors.As(err, &conflict) {
			t.Errorf("deleting the default team: %v, want a ConflictError", err)
		}
		if err := s.RemoveMember(ctx, "team-a", u.ID); err != nil {
			t.Fatal(err)
		}
		if page, err := s.ListClusterPage(ctx, ClusterFilter{MemberOf: u.ID}); err != nil || len(page.Clusters) != 0 {
			t.Errorf("ann's page after leaving = %d clusters, %v; want none", len(page.Clusters), err)
		}
		if err := s.DeleteCluster(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteTeam(ctx, "team-a"); err != nil {
			t.Errorf("deleting an empty team: %v", err)
		}
	})
}

func TestExternalMembershipsAreReplacedAndLocalOnesKept(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, n := range []string{"team-a", "team-b", "team-c"} {
			if _, err := s.CreateTeam(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		u := User{Email: "bo@example.com", Username: "bo", PasswordHash: "x", Role: access.Member}
		if err := s.CreateUser(ctx, &u); err != nil {
			t.Fatal(err)
		}
		if err := s.SetMember(ctx, TeamMember{Team: "team-c", UserID: u.ID, Role: access.Viewer, Source: MemberSourceLocal}); err != nil {
			t.Fatal(err)
		}
		first := map[string]access.Role{"team-a": access.Operator, "team-b": access.Viewer, "team-c": access.Admin}
		if err := s.ReplaceExternalMemberships(ctx, u.ID, first); err != nil {
			t.Fatal(err)
		}
		if got := rolesOf(ctx, t, s, u.ID); got != "team-a=operator/oidc team-b=viewer/oidc team-c=viewer/local" {
			t.Errorf("after the first sign-in: %s", got)
		}
		if err := s.ReplaceExternalMemberships(ctx, u.ID, map[string]access.Role{"team-b": access.Admin}); err != nil {
			t.Fatal(err)
		}
		if got := rolesOf(ctx, t, s, u.ID); got != "team-b=admin/oidc team-c=viewer/local" {
			t.Errorf("after groups changed: %s", got)
		}
		if err := s.ReplaceExternalMemberships(ctx, u.ID, map[string]access.Role{"gone": access.Admin}); err == nil {
			t.Error("a mapping to a team that does not exist was accepted")
		}
	})
}

func rolesOf(ctx context.Context, t *testing.T, s *Store, userID string) string {
	t.Helper()
	ms, err := s.TeamsOf(ctx, userID)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for i, m := range ms {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s=%s/%s", m.Team, m.Role, m.Source)
	}
	return out
}
