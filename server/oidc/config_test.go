package oidc

import (
	"maps"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// A member of several mapped groups gets the highest global role and the
// highest role on each team; team mappings alone make a member; groups
// no mapping names give nothing.
func TestGrantsTakeTheHighestRoleOfEachKind(t *testing.T) {
	c := Config{Mappings: []Mapping{
		{Group: "auditors", Role: "viewer"},
		{Group: "platform", Role: "platform-admin"},
		{Group: "a-ops", Role: "operator", Team: "team-a"},
		{Group: "a-leads", Role: "admin", Team: "team-a"},
		{Group: "b-readers", Role: "viewer", Team: "team-b"},
	}}
	for _, tc := range []struct {
		name   string
		groups []string
		global access.Role
		teams  map[string]access.Role
		ok     bool
	}{
		{"no mapped group", []string{"contractors"}, access.Anonymous, map[string]access.Role{}, false},
		{"team roles only make a member", []string{"a-ops", "b-readers"}, access.Member,
			map[string]access.Role{"team-a": access.Operator, "team-b": access.Viewer}, true},
		{"the higher role on a team wins, whatever the order", []string{"a-leads", "a-ops"}, access.Member,
			map[string]access.Role{"team-a": access.Admin}, true},
		{"the higher global role wins", []string{"platform", "auditors", "a-ops"}, access.PlatformAdmin,
			map[string]access.Role{"team-a": access.Operator}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			global, teams, ok := c.Grants(tc.groups)
			if global != tc.global || ok != tc.ok || !maps.Equal(teams, tc.teams) {
				t.Errorf("Grants(%v) = %q, %v, %v; want %q, %v, %v", tc.groups, global, teams, ok, tc.global, tc.teams, tc.ok)
			}
		})
	}
}
