package api

import "testing"

func TestBadge(t *testing.T) {
	cases := map[string]string{
		"Pending": BadgeAmber, "provisioning": BadgeAmber, "ValidatingAccess": BadgeAmber, "BootstrappingFlux": BadgeAmber,
		"GeneratingGitOpsTree": BadgeAmber, "InstallingKubeOpera": BadgeAmber,
		"Ready": BadgeGreen, "running": BadgeGreen, "ACTIVE": BadgeGreen,
		"Failed": BadgeRed, "error": BadgeRed,
		"Deleting": BadgeAmber, "TearingDown": BadgeAmber,
		"": BadgeGray, "Dancing": BadgeGray,
	}
	for status, want := range cases {
		if got := badge(status); got != want {
			t.Errorf("badge(%q) = %q, want %q", status, got, want)
		}
	}
}
