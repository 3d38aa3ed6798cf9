package access

import "testing"

// What a caller may do on a team's clusters is the higher of its global
// role's reach and its membership: a global viewer reads every team, a
// platform admin administers every team, a member only its own teams.
func TestOnTeam(t *testing.T) {
	for _, tc := range []struct {
		global, member, want Role
	}{
		{Member, Anonymous, Anonymous},
		{Member, Operator, Operator},
		{Viewer, Anonymous, Viewer},
		{Viewer, Admin, Admin},
		{Viewer, Viewer, Viewer},
		{PlatformAdmin, Anonymous, PlatformAdmin},
		{PlatformAdmin, Viewer, PlatformAdmin},
		{Member, PlatformAdmin, Anonymous}, // not a team role: a membership cannot carry it
	} {
		if got := OnTeam(tc.global, tc.member); got != tc.want {
			t.Errorf("OnTeam(%q, %q) = %q, want %q", tc.global, tc.member, got, tc.want)
		}
	}
}

func TestParseKeepsGlobalAndTeamRolesApart(t *testing.T) {
	for _, r := range GlobalRoles {
		if _, err := ParseGlobal(string(r)); err != nil {
			t.Errorf("ParseGlobal(%q): %v", r, err)
		}
	}
	for _, r := range TeamRoles {
		if _, err := ParseTeam(string(r)); err != nil {
			t.Errorf("ParseTeam(%q): %v", r, err)
		}
	}
	if _, err := ParseGlobal("operator"); err == nil {
		t.Error("operator taken as a global role")
	}
	if _, err := ParseTeam("platform-admin"); err == nil {
		t.Error("platform-admin taken as a team role")
	}
	if err := CheckTeamName("payments-prod"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "Payments", "-a", "a b", string(make([]byte, 64))} {
		if CheckTeamName(bad) == nil {
			t.Errorf("team name %q accepted", bad)
		}
	}
}
