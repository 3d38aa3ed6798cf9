package tfmodules

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// subnetReadiness is what each subnet output of the vpc module must wait
// for: the subnets' route tables, their associations and the gateway the
// route leads to.
var subnetReadiness = map[string][]string{
	"public_subnet_ids":  {"aws_internet_gateway.this", "aws_route_table.public", "aws_route_table_association.public"},
	"private_subnet_ids": {"aws_nat_gateway.this", "aws_route_table.private", "aws_route_table_association.private"},
}

// blocksByDir parses every .tf file of a tree: the top-level blocks of
// each module directory ("." for the root).
func blocksByDir(t *testing.T, files map[string][]byte) map[string][]*hclsyntax.Block {
	t.Helper()
	out := map[string][]*hclsyntax.Block{}
	for name, data := range files {
		if !strings.HasSuffix(name, ".tf") {
			continue
		}
		f, diags := hclsyntax.ParseConfig(data, name, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", name, diags)
		}
		out[path.Dir(name)] = append(out[path.Dir(name)], f.Body.(*hclsyntax.Body).Blocks...)
	}
	return out
}

// addresses are the "type.name" (or "module.name.output", "var.name")
// prefixes of every reference in an expression.
func addresses(e hclsyntax.Expression) []string {
	var out []string
	for _, trav := range e.Variables() {
		parts := []string{trav.RootName()}
		for _, step := range trav[1:] {
			if a, ok := step.(hcl.TraverseAttr); ok {
				parts = append(parts, a.Name)
			}
		}
		n := 2
		if parts[0] == "module" {
			n = 3
		}
		out = append(out, strings.Join(parts[:min(n, len(parts))], "."))
	}
	return out
}

// Every consumer of a subnet waits for the subnet's routes and gateways:
// the vpc module's subnet outputs depend on them (so the worker Auto
// Scaling Group, the nodes, the load balancers and EKS wait too), no other
// output hands out a subnet, the roots pass subnets only from those
// outputs, and no other module finds or makes a subnet itself.
func TestSubnetConsumersWaitForRoutesAndGateways(t *testing.T) {
	for name, m := range trees(t) {
		dirs := blocksByDir(t, m.Files)
		declared := map[string]bool{}
		for _, b := range dirs["modules/vpc"] {
			if b.Type == "resource" {
				declared[b.Labels[0]+"."+b.Labels[1]] = true
			}
		}
		for _, want := range subnetReadiness {
			for _, w := range want {
				if !declared[w] {
					t.Errorf("%s: the vpc module declares no %s", name, w)
				}
			}
		}
		checkSubnetOutputs(t, name, dirs["modules/vpc"])
		for _, b := range dirs["."] {
			if b.Type != "module" {
				continue
			}
			for _, a := range b.Body.Attributes {
				if !strings.Contains(a.Name, "subnet") {
					continue
				}
				for _, r := range addresses(a.Expr) {
					if _, ok := subnetReadiness[strings.TrimPrefix(r, "module.vpc.")]; !ok || !strings.HasPrefix(r, "module.vpc.") {
						t.Errorf("%s: module %q gets %s from %s, not from a vpc subnet output that waits for the routes", name, b.Labels[0], a.Name, r)
					}
				}
			}
		}
		for dir, blocks := range dirs {
			if dir == "modules/vpc" {
				continue
			}
			for _, b := range blocks {
				if len(b.Labels) > 0 && (b.Labels[0] == "aws_subnet" || b.Labels[0] == "aws_subnets") {
					t.Errorf("%s: %s has its own %s %q; subnets come from the vpc module's outputs", name, dir, b.Type, b.Labels[0])
				}
			}
		}
	}
}

// checkSubnetOutputs checks that every vpc output handing out a subnet is
// one of subnetReadiness and depends on what that lists.
func checkSubnetOutputs(t *testing.T, name string, vpc []*hclsyntax.Block) {
	t.Helper()
	for _, b := range vpc {
		if b.Type != "output" {
			continue
		}
		var refs []string
		for _, a := range b.Body.Attributes {
			if a.Name != "depends_on" {
				refs = append(refs, addresses(a.Expr)...)
			}
		}
		exposesSubnet := slices.ContainsFunc(refs, func(r string) bool { return strings.HasPrefix(r, "aws_subnet.") })
		want, isSubnetOutput := subnetReadiness[b.Labels[0]]
		if exposesSubnet && !isSubnetOutput {
			t.Errorf("%s: vpc output %q hands out a subnet without waiting for its routes", name, b.Labels[0])
		}
		if !isSubnetOutput {
			continue
		}
		var deps []string
		if a, ok := b.Body.Attributes["depends_on"]; ok {
			deps = addresses(a.Expr)
		}
		for _, w := range want {
			if !slices.Contains(deps, w) {
				t.Errorf("%s: vpc output %q does not depend on %s, so its consumers may start before the subnet can route", name, b.Labels[0], w)
			}
		}
	}
}
