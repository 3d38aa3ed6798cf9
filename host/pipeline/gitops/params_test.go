package gitops

import (
	"strings"
	"testing"
)

func TestValidateAcceptsGoodParams(t *testing.T) {
	for name, p := range variants() {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, path := range []string{"", "clusters", "clusters/prod-eu", "a/b/c.d/e_f"} {
		p := minimalParams()
		p.Path = path
		if err := p.Validate(); err != nil {
			t.Errorf("path %q: %v", path, err)
		}
	}
	for _, domain := range []string{"example.com", "ops.example.com", "a-1.b-2.example.co.uk"} {
		p := minimalParams()
		p.Domain = domain
		if err := p.Validate(); err != nil {
			t.Errorf("domain %q: %v", domain, err)
		}
	}
}

func TestValidateSaysWhatToFix(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(*Params)
		want   []string // every one must be in the error
	}{
		"empty cluster ID":     {func(p *Params) { p.ClusterID = "" }, []string{"cluster ID: empty", "prod-eu-1"}},
		"upper-case ID":        {func(p *Params) { p.ClusterID = "Prod" }, []string{`cluster ID "Prod": not a DNS label`, "lower-case"}},
		"ID with a dot":        {func(p *Params) { p.ClusterID = "prod.eu" }, []string{`cluster ID "prod.eu": not a DNS label`}},
		"ID too long":          {func(p *Params) { p.ClusterID = strings.Repeat("a", 64) }, []string{"not a DNS label", "63"}},
		"empty domain":         {func(p *Params) { p.Domain = "" }, []string{"domain: empty", "ops.example.com"}},
		"domain with scheme":   {func(p *Params) { p.Domain = "https://ops.example.com" }, []string{`domain "https://ops.example.com": not a DNS name`, "no scheme"}},
		"domain with port":     {func(p *Params) { p.Domain = "ops.example.com:443" }, []string{"not a DNS name"}},
		"single-label domain":  {func(p *Params) { p.Domain = "localhost" }, []string{`domain "localhost": not a DNS name`, "at least two segments"}},
		"upper-case domain":    {func(p *Params) { p.Domain = "Ops.Example.com" }, []string{"not a DNS name", "lower-case"}},
		"trailing dot":         {func(p *Params) { p.Domain = "ops.example.com." }, []string{"not a DNS name", "trailing dot"}},
		"wildcard domain":      {func(p *Params) { p.Domain = "*.example.com" }, []string{"not a DNS name"}},
		"api host too long":    {func(p *Params) { p.Domain = longDomain(250) }, []string{"API host", "longer than 253"}},
		"absolute path":        {func(p *Params) { p.Path = "/clusters/prod" }, []string{`path "/clusters/prod": starts with '/'`, `"clusters/prod"`}},
		"path escapes":         {func(p *Params) { p.Path = "../other" }, []string{`path "../other"`, "'..'"}},
		"path escapes midway":  {func(p *Params) { p.Path = "clusters/../../x" }, []string{"'..'"}},
		"path is a dot":        {func(p *Params) { p.Path = "." }, []string{`path "."`, `"" for the root`}},
		"path with ./":         {func(p *Params) { p.Path = "./clusters/prod" }, []string{"not clean", `"clusters/prod"`}},
		"path trailing slash":  {func(p *Params) { p.Path = "clusters/prod/" }, []string{"not clean", `"clusters/prod"`}},
		"path double slash":    {func(p *Params) { p.Path = "clusters//prod" }, []string{"not clean"}},
		"path backslash":       {func(p *Params) { p.Path = `clusters\prod` }, []string{`'\'`, "separate directories with '/'"}},
		"no version":           {func(p *Params) { p.Version = "" }, []string{"version: empty", "image tag"}},
		"bad version":          {func(p *Params) { p.Version = "v1 beta" }, []string{`version "v1 beta": not an image tag`}},
		"registry with scheme": {func(p *Params) { p.ImageRegistry = "https://ghcr.io/x" }, []string{"image registry", "no scheme"}},
		"registry slash":       {func(p *Params) { p.ImageRegistry = "ghcr.io/x/" }, []string{"image registry", "trailing '/'"}},
		"bad pull secret":      {func(p *Params) { p.PullSecret = "Reg_Cred" }, []string{`pull secret "Reg_Cred": not a Kubernetes object name`}},
		"bad admin email":      {func(p *Params) { p.AdminEmail = "Admin <a@example.com>" }, []string{"admin email", "just the address"}},
		"unknown provider":     {func(p *Params) { p.Provider = "openstack" }, []string{`provider "openstack": unknown`, `"aws"`}},
		"too many instances":   {func(p *Params) { p.Database.Instances = 9 }, []string{"database instances 9", "1 to 5"}},
		"bad database size":    {func(p *Params) { p.Database.Size = "ten gigs" }, []string{`database size "ten gigs"`, "10Gi"}},
		"negative size":        {func(p *Params) { p.Database.Size = "-1Gi" }, []string{"positive"}},
		"bad postgres version": {func(p *Params) { p.Database.PostgresVersion = "17.2" }, []string{`PostgreSQL version "17.2"`}},
	} {
		t.Run(name, func(t *testing.T) {
			p := prodParams()
			tc.change(&p)
			err := p.Validate()
			if err == nil {
				t.Fatal("Validate accepted it")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if _, genErr := Generate(p); genErr == nil || !strings.Contains(genErr.Error(), tc.want[0]) {
				t.Errorf("Generate error %v, want the validation error", genErr)
			}
		})
	}
}

func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	err := Params{Path: "/x"}.Validate()
	if err == nil {
		t.Fatal("Validate accepted empty params")
	}
	for _, w := range []string{"cluster ID: empty", "domain: empty", `path "/x"`, "version: empty"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// longDomain is a valid domain of n characters.
func longDomain(n int) string {
	var labels []string
	for n > 0 {
		l := min(n, 63)
		if n-l == 1 { // leave room for a dot and a one-letter label
			l--
		}
		labels = append(labels, strings.Repeat("a", l))
		n -= l + 1
	}
	return strings.Join(labels, ".")
}
