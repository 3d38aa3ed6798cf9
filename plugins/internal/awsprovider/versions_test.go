package awsprovider

import (
	"slices"
	"testing"
	"time"
)

// Each plugin's table: its default is offered, every version is supported
// for at least 60 days after the day the table was checked, and the
// minors are distinct, newest first.
func TestVersionTablesOfferSupportedVersions(t *testing.T) {
	for name, table := range map[string]VersionTable{"aws-vanilla": VanillaVersions, "aws-eks": EKSVersions} {
		t.Run(name, func(t *testing.T) {
			if !slices.Contains(table.Minors(), table.Default) {
				t.Errorf("default %s is not in the table %v", table.Default, table.Minors())
			}
			checked, err := time.Parse(time.DateOnly, table.CheckedOn)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range table.Versions {
				until, err := time.Parse(time.DateOnly, v.SupportedUntil)
				if err != nil {
					t.Fatalf("%s: %v", v.Minor, err)
				}
				if until.Before(checked.AddDate(0, 0, 60)) {
					t.Errorf("%s is supported only until %s, less than 60 days after %s", v.Minor, v.SupportedUntil, table.CheckedOn)
				}
				if i > 0 && !newer(table.Versions[i-1].Minor, v.Minor) {
					t.Errorf("%s listed after %s: newest first", v.Minor, table.Versions[i-1].Minor)
				}
			}
		})
	}
}

func newer(a, b string) bool {
	var x, y int
	for _, c := range a[2:] {
		x = x*10 + int(c-'0')
	}
	for _, c := range b[2:] {
		y = y*10 + int(c-'0')
	}
	return x > y
}

func TestResolveAcceptsMinorsAndPatchReleases(t *testing.T) {
	for _, tc := range []struct {
		in, minor, patch string
		ok               bool
	}{
		{"1.36", "1.36", "", true},
		{"1.36.2", "1.36", "1.36.2", true},
		{"v1.37.0", "1.37", "1.37.0", true},
		{"1.31.0", "", "", false},
		{"1.36.x", "", "", false},
		{"", "", "", false},
	} {
		minor, patch, err := VanillaVersions.Resolve(tc.in)
		if (err == nil) != tc.ok || minor != tc.minor || patch != tc.patch {
			t.Errorf("Resolve(%q) = %q, %q, %v; want %q, %q, ok=%v", tc.in, minor, patch, err, tc.minor, tc.patch, tc.ok)
		}
	}
}
