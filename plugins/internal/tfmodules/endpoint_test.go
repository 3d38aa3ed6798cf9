package tfmodules

import (
	"io/fs"
	"strings"
	"testing"
)

// The management side reaches a vanilla cluster through an internet-facing
// NLB open to api_allowed_cidrs only; its name is in the API server's
// certificate and in the published kubeconfig (the bootstrap tests run
// that part).
func TestVanillaAPIHasAPublicEndpointOpenToTheAllowList(t *testing.T) {
	files := computeModule(t)
	public, _, _ := block(t, files, "resource", "aws_lb", "public")
	for _, want := range []string{"internal                         = false", "subnets                          = var.public_subnet_ids",
		"security_groups                  = [aws_security_group.api_public.id]"} {
		if !strings.Contains(public, want) {
			t.Errorf("aws_lb.public lacks %q:\n%s", want, public)
		}
	}
	if strings.Contains(public, "count") {
		t.Errorf("aws_lb.public has a count: every cluster needs its public endpoint, one control plane or several")
	}
	if got := expr(t, files, "for_each", "resource", "aws_vpc_security_group_ingress_rule", "api_public"); got != "toset(var.api_allowed_cidrs)" {
		t.Errorf("public API ingress rules come from %s, want toset(var.api_allowed_cidrs)", got)
	}
	if got := expr(t, files, "cidr_ipv4", "resource", "aws_vpc_security_group_ingress_rule", "api_public"); got != "each.value" {
		t.Errorf("public API ingress rule opens %s, want each allowed CIDR", got)
	}
	variable, b, _ := block(t, files, "variable", "api_allowed_cidrs")
	if _, ok := b.Body.Attributes["default"]; ok {
		t.Errorf("api_allowed_cidrs has a default; the user must say who reaches the API:\n%s", variable)
	}
	if got := expr(t, files, "public_endpoint", "module", "control_plane_user_data"); got != "aws_lb.public.dns_name" {
		t.Errorf("control planes get public_endpoint = %s, want aws_lb.public.dns_name (SANs and kubeconfig)", got)
	}
	if got := expr(t, files, "value", "output", "api_endpoint"); got != "aws_lb.public.dns_name" {
		t.Errorf("output api_endpoint = %s", got)
	}
	if got := expr(t, files, "count", "resource", "aws_lb_target_group_attachment", "public"); got != "var.control_plane_count" {
		t.Errorf("public targets: count = %s, want every control plane", got)
	}
}

// Both NLBs check HTTPS /readyz: plain TCP passes as soon as the port is
// open, before the API server serves.
func TestAPITargetGroupsCheckReadyz(t *testing.T) {
	files := computeModule(t)
	_, hc := local(t, files, "api_health_check")
	for _, want := range []string{`protocol            = "HTTPS"`, `path                = "/readyz"`, `matcher             = "200"`} {
		if !strings.Contains(hc, want) {
			t.Errorf("api_health_check lacks %s:\n%s", want, hc)
		}
	}
	for _, tg := range []string{"api", "public"} {
		text, _, _ := block(t, files, "resource", "aws_lb_target_group", tg)
		if !strings.Contains(text, "protocol            = local.api_health_check.protocol") ||
			!strings.Contains(text, "path                = local.api_health_check.path") {
			t.Errorf("aws_lb_target_group.%s does not use api_health_check:\n%s", tg, text)
		}
	}
}

func TestEKSEndpointAccessIsTheInputs(t *testing.T) {
	src, err := fs.ReadFile(embedded, "modules/eks/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"endpoint_private_access = var.endpoint_private_access",
		"endpoint_public_access  = var.endpoint_public_access",
		"public_access_cidrs     = var.endpoint_public_access ? var.public_access_cidrs : null"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("eks module's vpc_config lacks %q", want)
		}
	}
	m, err := EKS(eksInput())
	if err != nil {
		t.Fatal(err)
	}
	root := string(m.Files["main.tf"])
	if !strings.Contains(unaligned(root), `public_access_cidrs = ["203.0.113.0/24", "198.51.100.7/32"]`) {
		t.Errorf("root does not pass the allow-list:\n%s", root)
	}
}
