package main

import (
	"testing"
)

// A command missing its argument says what it needs and how it is
// written, not cobra's "accepts 1 arg(s), received 0", with exit 2.
func TestAMissingArgumentIsNamed(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"login names the server's URL", []string{"login"},
			"login needs the server's URL: kubeopera login https://kubeopera.example.com"},
		{"login takes one URL", []string{"login", "https://a.example.com", "https://b.example.com"},
			"login takes one argument, the server's URL, not 2: kubeopera login https://kubeopera.example.com"},
		{"teardown names the cluster", []string{"clusters", "teardown"},
			"clusters teardown needs the cluster's name: kubeopera clusters teardown NAME"},
		{"disconnect names the cluster", []string{"clusters", "disconnect"},
			"clusters disconnect needs the cluster's name: kubeopera clusters disconnect NAME"},
		{"get shows its usage", []string{"clusters", "get"}, "clusters get needs NAME: kubeopera clusters get NAME"},
		{"scale shows its usage with its flags", []string{"clusters", "scale", "--nodes", "3"},
			"clusters scale needs NAME: kubeopera clusters scale NAME --nodes N"},
		{"credentials delete names the ID", []string{"credentials", "delete"}, "credentials delete needs ID: kubeopera credentials delete ID"},
		{"context use names the context", []string{"context", "use"}, "context use needs NAME: kubeopera context use NAME"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runCLI(t, "", tc.args...)
			if err == nil || err.Error() != tc.want || exitCodeOf(err) != exitUsage {
				t.Errorf("%v: %v (exit %d), want %q (exit %d)\n%s", tc.args, err, exitCodeOf(err), tc.want, exitUsage, out)
			}
		})
	}
}

func TestPlaceholdersAreTheRequiredArguments(t *testing.T) {
	tests := []struct {
		use  string
		want []string
	}{
		{"get NAME", []string{"NAME"}},
		{"scale NAME --nodes N", []string{"NAME"}},
		{"logout [CONTEXT]", nil},
		{"revoke ID|NAME", []string{"ID|NAME"}},
		{"list", nil},
		{"", nil},
	}
	for _, tc := range tests {
		if got := placeholders(tc.use); len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
			t.Errorf("placeholders(%q) = %q, want %q", tc.use, got, tc.want)
		}
	}
}
