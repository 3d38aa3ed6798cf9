// Package terraform runs Terraform for provider plugins: it renders a root
// module from modules a plugin embeds plus one request's inputs, and runs
// terraform init/apply/output/destroy through hashicorp/terraform-exec,
// either in a local workspace or as one Kubernetes Job per request.
package terraform

import (
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Root describes the root module of one run: which providers it needs, the
// state backend, the module calls with their inputs and the outputs read
// back after apply.
type Root struct {
	// RequiredProviders maps a provider's local name to its source and
	// version constraint, e.g. "aws": {"hashicorp/aws", "~> 5.0"}.
	RequiredProviders map[string]ProviderRequirement
	// Providers are provider configuration blocks.
	Providers []Provider
	// Backend is the state backend type, e.g. "kubernetes"; its settings
	// are given at init time by the executor. Empty keeps local state.
	Backend string
	// Modules are the module calls, in order.
	Modules []ModuleCall
	// Outputs are the root outputs, in order.
	Outputs []Output
}

// ProviderRequirement is one entry of required_providers. An empty Version
// is left out (any version).
type ProviderRequirement struct {
	Source, Version string
}

// Provider is a provider block.
type Provider struct {
	Name       string
	Attributes map[string]cty.Value
	// Blocks are nested blocks, after the attributes, e.g. aws's
	// default_tags or assume_role, which are blocks, not attributes.
	Blocks []Block
}

// Block is a nested block such as `default_tags { tags = {...} }`.
type Block struct {
	// Type is the block type, e.g. "default_tags".
	Type string
	// Labels follow the type, as in `setting "name" { ... }`; usually none.
	Labels []string
	// Attributes are written first, sorted by name.
	Attributes map[string]cty.Value
	// Blocks are nested in this one, after the attributes.
	Blocks []Block
}

// ModuleCall is a module block; Source is usually "./modules/<name>".
type ModuleCall struct {
	Name, Source string
	// Inputs are literal values.
	Inputs map[string]cty.Value
	// References are inputs taken from another expression, e.g.
	// "vpc_id": "module.vpc.vpc_id".
	References map[string]string
}

// Output is a root output whose value is an expression such as
// "module.compute.endpoint".
type Output struct {
	Name, Expr string
	Sensitive  bool
}

// RenderRoot writes r as HCL. The result is deterministic (attributes
// sorted) and already in `terraform fmt` layout.
func RenderRoot(r Root) ([]byte, error) {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	tf := body.AppendNewBlock("terraform", nil).Body()
	if len(r.RequiredProviders) > 0 {
		req := tf.AppendNewBlock("required_providers", nil).Body()
		for _, name := range sortedKeys(r.RequiredProviders) {
			p := r.RequiredProviders[name]
			// An empty constraint is invalid HCL for terraform ("Invalid
			// version constraint"); leaving it out allows any version.
			attrs := map[string]cty.Value{"source": cty.StringVal(p.Source)}
			if p.Version != "" {
				attrs["version"] = cty.StringVal(p.Version)
			}
			req.SetAttributeValue(name, cty.ObjectVal(attrs))
		}
	}
	if r.Backend != "" {
		tf.AppendNewBlock("backend", []string{r.Backend})
	}
	for _, p := range r.Providers {
		body.AppendNewline()
		pb := body.AppendNewBlock("provider", []string{p.Name}).Body()
		setValues(pb, p.Attributes)
		appendBlocks(pb, p.Blocks)
	}
	for _, m := range r.Modules {
		body.AppendNewline()
		mb := body.AppendNewBlock("module", []string{m.Name}).Body()
		mb.SetAttributeValue("source", cty.StringVal(m.Source))
		setValues(mb, m.Inputs)
		for _, k := range sortedKeys(m.References) {
			if err := setExpr(mb, k, m.References[k]); err != nil {
				return nil, fmt.Errorf("module %s input %s: %w", m.Name, k, err)
			}
		}
	}
	for _, o := range r.Outputs {
		body.AppendNewline()
		ob := body.AppendNewBlock("output", []string{o.Name}).Body()
		if err := setExpr(ob, "value", o.Expr); err != nil {
			return nil, fmt.Errorf("output %s: %w", o.Name, err)
		}
		if o.Sensitive {
			ob.SetAttributeValue("sensitive", cty.True)
		}
	}
	return hclwrite.Format(f.Bytes()), nil
}

func setValues(b *hclwrite.Body, values map[string]cty.Value) {
	for _, k := range sortedKeys(values) {
		b.SetAttributeValue(k, values[k])
	}
}

func appendBlocks(b *hclwrite.Body, blocks []Block) {
	for _, nb := range blocks {
		body := b.AppendNewBlock(nb.Type, nb.Labels).Body()
		setValues(body, nb.Attributes)
		appendBlocks(body, nb.Blocks)
	}
}

// setExpr sets an attribute to a reference such as module.vpc.subnet_ids;
// only plain traversals are accepted, so nothing else can be injected.
func setExpr(b *hclwrite.Body, name, expr string) error {
	trav, diags := hclsyntax.ParseTraversalAbs([]byte(expr), "", hcl.InitialPos)
	if diags.HasErrors() {
		return fmt.Errorf("%q is not a reference: %s", expr, diags.Error())
	}
	b.SetAttributeTraversal(name, trav)
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Module is a complete module tree to run: file contents by slash-separated
// path relative to the working directory ("main.tf", "modules/vpc/main.tf").
type Module struct {
	Files map[string][]byte
}

// NewModule puts the rendered root at main.tf and copies each named
// directory of children (e.g. the plugin's embedded modules) to
// modules/<dir>/.
func NewModule(root []byte, children fs.FS, dirs ...string) (Module, error) {
	m := Module{Files: map[string][]byte{"main.tf": root}}
	for _, dir := range dirs {
		err := fs.WalkDir(children, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(children, p)
			if err != nil {
				return err
			}
			m.Files[path.Join("modules", p)] = data
			return nil
		})
		if err != nil {
			return Module{}, fmt.Errorf("module %s: %w", dir, err)
		}
	}
	return m, nil
}
