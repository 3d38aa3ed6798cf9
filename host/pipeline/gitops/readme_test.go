package gitops

import (
	"path"
	"strings"
	"testing"
)

// The README lists exactly the charts its tree installs, at their pinned
// versions, and says where DNS must point for the way KubeOpera is
// published.
func TestReadmeListsTheTreesChartsAndWhereDNSPoints(t *testing.T) {
	for name, tc := range map[string]struct {
		p         Params
		dns       string
		with, not chart
	}{
		"gateway":       {prodParams(), "Point DNS for both hosts at the Gateway's address", chartEnvoyGateway, chartIngressNginx},
		"ingress-nginx": {nginxParams(), "Point DNS for both hosts at the ingress-nginx", chartIngressNginx, chartEnvoyGateway},
	} {
		t.Run(name, func(t *testing.T) {
			body := string(generate(t, tc.p)[path.Join(tc.p.Path, "README.md")])
			if !strings.Contains(body, tc.dns) {
				t.Errorf("README does not say %q:\n%s", tc.dns, body)
			}
			row := func(c chart) string {
				return "| " + c.name + " | " + c.url + " | " + c.version + " | " + c.checked + " |"
			}
			if !strings.Contains(body, row(tc.with)) || !strings.Contains(body, row(chartCertManager)) {
				t.Errorf("README lacks the rows %q and %q:\n%s", row(tc.with), row(chartCertManager), body)
			}
			if strings.Contains(body, "| "+tc.not.name+" |") {
				t.Errorf("README lists %s, which this tree does not install", tc.not.name)
			}
		})
	}
}
