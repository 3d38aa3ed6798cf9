package tfmodules

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// The compute module cannot be planned here (no AWS provider), so these
// tests lift the expressions that decide the control-plane layout out of
// the real module text and evaluate them: with the real terraform where
// they only need variables and locals, and with HCL where they read
// resource attributes.

// computeFile is one parsed file of the embedded compute module.
type computeFile struct {
	src  []byte
	body *hclsyntax.Body
}

func computeModule(t *testing.T) []computeFile {
	t.Helper()
	return moduleFiles(t, "compute")
}

// moduleFiles parses every .tf file of an embedded module.
func moduleFiles(t *testing.T, name string) []computeFile {
	t.Helper()
	paths, err := fs.Glob(embedded, "modules/"+name+"/*.tf")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no %s module files: %v", name, err)
	}
	var files []computeFile
	for _, p := range paths {
		src, err := fs.ReadFile(embedded, p)
		if err != nil {
			t.Fatal(err)
		}
		f, diags := hclsyntax.ParseConfig(src, p, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		files = append(files, computeFile{src: src, body: f.Body.(*hclsyntax.Body)})
	}
	return files
}

// block returns the source text of a top-level block and the block.
func block(t *testing.T, files []computeFile, typ string, labels ...string) (string, *hclsyntax.Block, []byte) {
	t.Helper()
	for _, f := range files {
		for _, b := range f.body.Blocks {
			if b.Type == typ && strings.Join(b.Labels, ".") == strings.Join(labels, ".") {
				return string(b.Range().SliceBytes(f.src)), b, f.src
			}
		}
	}
	t.Fatalf("module has no %s %v", typ, labels)
	return "", nil, nil
}

// expr returns the source text of an attribute of a top-level block.
func expr(t *testing.T, files []computeFile, attr, typ string, labels ...string) string {
	t.Helper()
	_, b, src := block(t, files, typ, labels...)
	a, ok := b.Body.Attributes[attr]
	if !ok {
		t.Fatalf("%s %v has no %s", typ, labels, attr)
	}
	return string(a.Expr.Range().SliceBytes(src))
}

// local returns the expression of a local value and its source text.
func local(t *testing.T, files []computeFile, name string) (hclsyntax.Expression, string) {
	t.Helper()
	for _, f := range files {
		for _, b := range f.body.Blocks {
			if a, ok := b.Body.Attributes[name]; ok && b.Type == "locals" {
				return a.Expr, string(a.Expr.Range().SliceBytes(f.src))
			}
		}
	}
	t.Fatalf("module has no local %s", name)
	return nil, ""
}

// probe writes a configuration with the real control_plane_count variable,
// the real nlb_count local, and one output per load balancer resource
// whose value is that resource's real count expression.
func probe(t *testing.T) string {
	t.Helper()
	files := computeModule(t)
	variable, _, _ := block(t, files, "variable", "control_plane_count")
	_, nlbCount := local(t, files, "nlb_count")
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nlocals {\n  nlb_count = %s\n}\n", variable, nlbCount)
	for _, r := range []string{"aws_lb", "aws_lb_target_group", "aws_lb_listener", "aws_lb_target_group_attachment"} {
		fmt.Fprintf(&b, "\noutput %q {\n  value = %s\n}\n", r, expr(t, files, "count", "resource", r, "api"))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestControlPlaneCountMustBeOddForEtcdQuorum(t *testing.T) {
	dir := probe(t)
	for _, n := range []int{1, 3, 5, 7, 0, 2, 4, 9} {
		out, err := runTerraform(t, dir, "plan", "-input=false", "-no-color", "-var", "control_plane_count="+strconv.Itoa(n))
		valid := n%2 == 1 && n <= 7
		switch {
		case valid && err != nil:
			t.Errorf("control_plane_count=%d was refused: %v\n%s", n, err, out)
		case !valid && err == nil:
			t.Errorf("control_plane_count=%d was accepted", n)
		case !valid && !strings.Contains(strings.Join(strings.Fields(out), " "), "etcd needs a majority (quorum)"):
			t.Errorf("control_plane_count=%d: refusal does not explain etcd quorum:\n%s", n, out)
		}
	}
}

func TestLoadBalancerOnlyWithSeveralControlPlanes(t *testing.T) {
	for _, tc := range []struct {
		controlPlanes int
		want          map[string]int
	}{
		{1, map[string]int{"aws_lb": 0, "aws_lb_target_group": 0, "aws_lb_listener": 0, "aws_lb_target_group_attachment": 0}},
		{3, map[string]int{"aws_lb": 1, "aws_lb_target_group": 1, "aws_lb_listener": 1, "aws_lb_target_group_attachment": 3}},
	} {
		dir := probe(t)
		n := strconv.Itoa(tc.controlPlanes)
		if out, err := runTerraform(t, dir, "apply", "-input=false", "-no-color", "-auto-approve", "-var", "control_plane_count="+n); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		out, err := runTerraform(t, dir, "output", "-json")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var outputs map[string]struct{ Value int }
		if err := json.Unmarshal([]byte(out), &outputs); err != nil {
			t.Fatalf("terraform output -json: %v\n%s", err, out)
		}
		for r, want := range tc.want {
			if got := outputs[r].Value; got != want {
				t.Errorf("control_plane_count=%d: %s.api count = %d, want %d", tc.controlPlanes, r, got, want)
			}
		}
	}
}

func TestControlPlaneEndpointIsTheLoadBalancerOrMemberZero(t *testing.T) {
	files := computeModule(t)
	override, _ := local(t, files, "control_plane_endpoint_override")
	endpoint, _ := local(t, files, "control_plane_endpoint")
	const nlb, ip = "ko-0123.elb.eu-north-1.amazonaws.com", "10.0.128.10"
	for _, tc := range []struct {
		name                 string
		loadBalancers        []cty.Value
		wantOverride, wantEP string
	}{
		{"one control plane: no NLB, member 0's IP", nil, "", ip},
		{"three control planes: the NLB", []cty.Value{cty.ObjectVal(map[string]cty.Value{"dns_name": cty.StringVal(nlb)})}, nlb, nlb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lbs := cty.EmptyTupleVal
			if tc.loadBalancers != nil {
				lbs = cty.TupleVal(tc.loadBalancers)
			}
			ctx := &hcl.EvalContext{
				Variables: map[string]cty.Value{
					"aws_lb": cty.ObjectVal(map[string]cty.Value{"api": lbs}),
					"aws_instance": cty.ObjectVal(map[string]cty.Value{"control_plane": cty.TupleVal([]cty.Value{
						cty.ObjectVal(map[string]cty.Value{"private_ip": cty.StringVal(ip)})})}),
				},
				Functions: map[string]function.Function{"join": stdlib.JoinFunc},
			}
			got, diags := override.Value(ctx)
			if diags.HasErrors() || got.AsString() != tc.wantOverride {
				t.Fatalf("control_plane_endpoint_override = %#v (%v), want %q", got, diags, tc.wantOverride)
			}
			ctx.Variables["local"] = cty.ObjectVal(map[string]cty.Value{"control_plane_endpoint_override": got})
			ep, diags := endpoint.Value(ctx)
			if diags.HasErrors() || ep.AsString() != tc.wantEP {
				t.Errorf("control_plane_endpoint = %#v (%v), want %q", ep, diags, tc.wantEP)
			}
		})
	}
}

func TestNodesGetTheOverrideAndRootOutputsTheEndpoint(t *testing.T) {
	files := computeModule(t)
	if got := expr(t, files, "endpoint_override", "module", "control_plane_user_data"); got != "local.control_plane_endpoint_override" {
		t.Errorf("control planes get endpoint_override = %s, want local.control_plane_endpoint_override", got)
	}
	if got := expr(t, files, "value", "output", "control_plane_endpoint"); got != "local.control_plane_endpoint" {
		t.Errorf("output control_plane_endpoint = %s, want local.control_plane_endpoint", got)
	}
	if text, _, _ := block(t, files, "resource", "aws_instance", "control_plane"); !strings.Contains(text, "ignore_changes = [ami, user_data_base64]") {
		t.Errorf("control planes do not ignore AMI and user_data changes: a new Ubuntu image would replace etcd members\n%s", text)
	}
}
