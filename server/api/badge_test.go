package api

import (
	"testing"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

func TestBadge(t *testing.T) {
	cases := map[string]string{
		"Pending": BadgeAmber, "provisioning": BadgeAmber, "ValidatingAccess": BadgeAmber, "BootstrappingFlux": BadgeAmber,
		"GeneratingGitOpsTree": BadgeAmber, "InstallingKubeOpera": BadgeAmber,
		"Ready": BadgeGreen, "running": BadgeGreen, "ACTIVE": BadgeGreen,
		"Failed": BadgeRed, "error": BadgeRed,
		"Deleting": BadgeAmber, "TearingDown": BadgeAmber, "Updating": BadgeAmber,
		"": BadgeGray, "Dancing": BadgeGray,
	}
	for status, want := range cases {
		if got := badge(status); got != want {
			t.Errorf("badge(%q) = %q, want %q", status, got, want)
		}
	}
}

// Every phase the controller writes has a colour: a new phase without one
// would show gray, as Updating did.
func TestEveryPhaseHasABadge(t *testing.T) {
	for _, p := range v1.Phases {
		if badge(string(p)) == BadgeGray {
			t.Errorf("phase %s has no badge (gray)", p)
		}
	}
}
