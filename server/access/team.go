package access

import (
	"fmt"
	"regexp"
)

// DefaultTeam owns every cluster and credential made without naming a
// team, and everything that existed before teams did. It cannot be
// deleted.
const DefaultTeam = "default"

// MaxTeamNameLength bounds a team's name: a DNS label.
const MaxTeamNameLength = 63

var teamNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// CheckTeamName says what is wrong with name as a team's name.
func CheckTeamName(name string) error {
	if len(name) > MaxTeamNameLength || !teamNameRE.MatchString(name) {
		return fmt.Errorf("team name %q: use 1 to %d lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. payments-prod)", name, MaxTeamNameLength)
	}
	return nil
}
