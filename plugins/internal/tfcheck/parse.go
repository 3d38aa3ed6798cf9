package tfcheck

import (
	"path"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// module is what the checks need to know of one module directory.
type module struct {
	dir       string
	variables map[string]variable
	outputs   map[string]bool
	locals    map[string]bool
	calls     map[string]call
	refs      []hcl.Traversal
}

type variable struct{ required bool }

// call is one module block.
type call struct {
	source                string
	sourceRange, defRange hcl.Range
	args                  map[string]hcl.Range
}

// metaArguments are module block arguments that are not input variables.
var metaArguments = map[string]bool{
	"source": true, "version": true, "count": true, "for_each": true, "providers": true, "depends_on": true,
}

// skipRefs are top-level blocks whose expressions are not checked: their
// addresses may name things that no longer exist (moved, removed) or that
// are outside the configuration (import), and terraform holds settings.
var skipRefs = map[string]bool{"moved": true, "removed": true, "import": true, "terraform": true}

func (c *checker) module(dir string) *module {
	m := c.modules[dir]
	if m == nil {
		m = &module{dir: dir, variables: map[string]variable{}, outputs: map[string]bool{},
			locals: map[string]bool{}, calls: map[string]call{}}
		c.modules[dir] = m
	}
	return m
}

// parse reads one file into its module's declarations and references.
func (c *checker) parse(name string, data []byte) {
	m := c.module(path.Dir(name))
	f, diags := hclsyntax.ParseConfig(data, name, hcl.InitialPos)
	for _, d := range diags {
		rng := hcl.Range{Filename: name, Start: hcl.InitialPos}
		if d.Subject != nil {
			rng = *d.Subject
		}
		c.add(rng, "%s: %s", d.Summary, d.Detail)
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if diags.HasErrors() || !ok {
		return
	}
	for _, b := range body.Blocks {
		c.declare(m, b)
		if !skipRefs[b.Type] {
			m.refs = append(m.refs, references(b.Body)...)
		}
	}
}

// declare records what block b declares in m.
func (c *checker) declare(m *module, b *hclsyntax.Block) {
	label := ""
	if len(b.Labels) > 0 {
		label = b.Labels[0]
	}
	switch b.Type {
	case "variable":
		_, hasDefault := b.Body.Attributes["default"]
		m.variables[label] = variable{required: !hasDefault}
	case "output":
		m.outputs[label] = true
	case "locals":
		for name := range b.Body.Attributes {
			m.locals[name] = true
		}
	case "module":
		m.calls[label] = c.moduleCall(label, b)
	}
}

func (c *checker) moduleCall(name string, b *hclsyntax.Block) call {
	cl := call{defRange: b.DefRange(), sourceRange: b.DefRange(), args: map[string]hcl.Range{}}
	for argName, attr := range b.Body.Attributes {
		if !metaArguments[argName] {
			cl.args[argName] = attr.NameRange
		}
	}
	attr, ok := b.Body.Attributes["source"]
	if !ok {
		c.add(b.DefRange(), "module %q has no source", name)
		return cl
	}
	cl.sourceRange = attr.Expr.Range()
	v, diags := attr.Expr.Value(nil)
	if diags.HasErrors() || !v.Type().Equals(cty.String) || v.IsNull() {
		c.add(cl.sourceRange, "module %q: source must be a literal string", name)
		return cl
	}
	cl.source = v.AsString()
	return cl
}

// references returns every variable reference in a body, nested blocks
// (dynamic content, validation, lifecycle...) included.
func references(body *hclsyntax.Body) []hcl.Traversal {
	var refs []hcl.Traversal
	for _, attr := range body.Attributes {
		refs = append(refs, attr.Expr.Variables()...)
	}
	for _, b := range body.Blocks {
		refs = append(refs, references(b.Body)...)
	}
	return refs
}
