// Package access holds KubeOpera's roles, the one list every other part
// (the store's checks, the API's authorization and document, the proxy's
// Kubernetes groups, the dashboard's types) takes them from, and the rule
// that turns a caller's global role and team memberships into what it may
// do on one team's cluster.
package access

import (
	"fmt"
	"slices"
	"strings"
)

// Role is what a caller may do. Roles are ordered: each includes the ones
// below it.
type Role string

// The roles, lowest first.
const (
	// Anonymous is a request without credentials.
	Anonymous Role = ""
	// Member may sign in; what it sees and does comes from its teams.
	Member Role = "member"
	// Viewer reads: on a team, that team's clusters; globally, every team's.
	Viewer Role = "viewer"
	// Operator does day-2 work on a team's clusters: scale, upgrade, retry.
	Operator Role = "operator"
	// Admin connects, provisions, tears down and disconnects a team's
	// clusters and manages the team's credentials.
	Admin Role = "admin"
	// PlatformAdmin is global: every team's Admin, and the platform's own
	// settings (users, teams, tokens, audit, the host cluster).
	PlatformAdmin Role = "platform-admin"
)

// GlobalRoles are the roles a user or an API token has everywhere, lowest
// first: the users table and the document take them from here.
var GlobalRoles = []Role{Member, Viewer, PlatformAdmin}

// TeamRoles are the roles a user has on one team, lowest first.
var TeamRoles = []Role{Viewer, Operator, Admin}

// ObjectRoles are what a caller may have on one team's cluster or
// credential: a team role, or PlatformAdmin.
var ObjectRoles = []Role{Viewer, Operator, Admin, PlatformAdmin}

var rank = map[Role]int{Anonymous: 0, Member: 1, Viewer: 2, Operator: 3, Admin: 4, PlatformAdmin: 5}

// AtLeast reports whether r includes need.
func (r Role) AtLeast(need Role) bool { return rank[r] >= rank[need] }

// ParseGlobal accepts the name of a global role.
func ParseGlobal(s string) (Role, error) { return parse(s, GlobalRoles) }

// ParseTeam accepts the name of a team role.
func ParseTeam(s string) (Role, error) { return parse(s, TeamRoles) }

func parse(s string, of []Role) (Role, error) {
	if r := Role(s); slices.Contains(of, r) {
		return r, nil
	}
	names := make([]string, len(of))
	for i, r := range of {
		names[i] = fmt.Sprintf("%q", r)
	}
	return "", fmt.Errorf("role must be one of %s, not %q", strings.Join(names, ", "), s)
}

// OnTeam is what a caller with global role global and team role member
// ("" when not a member) may do on that team's clusters: the higher of
// the two, where a global Viewer reads every team and a PlatformAdmin
// administers every team. Anonymous means the team's clusters are not
// even visible.
func OnTeam(global, member Role) Role {
	r := Anonymous
	switch global {
	case PlatformAdmin:
		return PlatformAdmin
	case Viewer:
		r = Viewer
	}
	if rank[member] > rank[r] && slices.Contains(TeamRoles, member) {
		r = member
	}
	return r
}

// SeesEveryTeam reports whether a caller with global role global sees
// every team's clusters without memberships.
func SeesEveryTeam(global Role) bool { return global.AtLeast(Viewer) }

// Highest is the highest of roles; Anonymous when there are none.
func Highest(roles ...Role) Role {
	best := Anonymous
	for _, r := range roles {
		if rank[r] > rank[best] {
			best = r
		}
	}
	return best
}
