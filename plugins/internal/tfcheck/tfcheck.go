// Package tfcheck cross-checks a Terraform module tree without providers or
// network: every module call's source exists in the tree, every argument it
// passes is a variable of the child, every required variable is passed, and
// every var.X, local.X, module.X and module.X.Y reference names something
// declared. It finds what `terraform validate` would, for the wiring between
// modules, where validate cannot run (it needs the providers installed).
//
// Only native-syntax .tf files are read; .tf.json files are ignored.
package tfcheck

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// Finding is one problem, at a position in a file of the tree.
type Finding struct {
	// File is the slash-separated path relative to the tree's root.
	File    string
	Line    int
	Message string
}

// String formats the finding as file:line: message.
func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message) }

// CheckModule checks the module tree of one Terraform run.
func CheckModule(m terraform.Module) []Finding { return Check(m.Files) }

// CheckDir checks the .tf files under dir; hidden directories such as
// .terraform are skipped.
func CheckDir(dir string) ([]Finding, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".tf") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read module tree %s: %w", dir, err)
	}
	return Check(files), nil
}

// Check checks a module tree given as file contents by slash-separated path
// ("main.tf", "modules/vpc/main.tf"); each directory with .tf files is one
// module, "." the root. Findings are sorted by file, line and message.
func Check(files map[string][]byte) []Finding {
	c := &checker{modules: map[string]*module{}}
	for _, name := range sortedKeys(files) {
		if strings.HasSuffix(name, ".tf") {
			c.parse(name, files[name])
		}
	}
	for _, dir := range sortedKeys(c.modules) {
		c.checkCalls(c.modules[dir])
		c.checkReferences(c.modules[dir])
	}
	sort.SliceStable(c.findings, func(i, j int) bool {
		a, b := c.findings[i], c.findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Message < b.Message
	})
	return c.findings
}

type checker struct {
	modules  map[string]*module
	findings []Finding
}

func (c *checker) add(r hcl.Range, format string, args ...any) {
	c.findings = append(c.findings, Finding{File: r.Filename, Line: r.Start.Line, Message: fmt.Sprintf(format, args...)})
}

// checkCalls checks each module call of m against the child it names.
func (c *checker) checkCalls(m *module) {
	for _, name := range sortedKeys(m.calls) {
		call := m.calls[name]
		if call.source == "" {
			continue // reported while parsing
		}
		if !strings.HasPrefix(call.source, "./") && !strings.HasPrefix(call.source, "../") {
			c.add(call.sourceRange, "module %q: source %q is not a local path; the tree must contain every module (nothing can be downloaded)", name, call.source)
			continue
		}
		childDir := path.Clean(path.Join(m.dir, call.source))
		child := c.modules[childDir]
		if child == nil {
			c.add(call.sourceRange, "module %q: source %q: no module in %s (no .tf files there)", name, call.source, childDir)
			continue
		}
		for _, arg := range sortedKeys(call.args) {
			if _, ok := child.variables[arg]; !ok {
				c.add(call.args[arg], "module %q: argument %q is not a variable of %s; declared: %s",
					name, arg, childDir, strings.Join(sortedKeys(child.variables), ", "))
			}
		}
		for _, v := range sortedKeys(child.variables) {
			if _, passed := call.args[v]; child.variables[v].required && !passed {
				c.add(call.defRange, "module %q: required variable %q of %s is not set (it has no default)", name, v, childDir)
			}
		}
	}
}

// checkReferences checks every var., local. and module. reference of m.
func (c *checker) checkReferences(m *module) {
	for _, trav := range m.refs {
		rng := trav.SourceRange()
		switch trav.RootName() {
		case "var":
			if name, ok := attrAt(trav, 1); ok && !has(m.variables, name) {
				c.add(rng, "var.%s is not declared in %s", name, m.dir)
			}
		case "local":
			if name, ok := attrAt(trav, 1); ok && !m.locals[name] {
				c.add(rng, "local.%s is not defined in %s", name, m.dir)
			}
		case "module":
			c.checkModuleRef(m, trav)
		}
	}
}

// checkModuleRef checks module.X and module.X[i].Y.
func (c *checker) checkModuleRef(m *module, trav hcl.Traversal) {
	rng := trav.SourceRange()
	name, ok := attrAt(trav, 1)
	if !ok {
		return
	}
	call, ok := m.calls[name]
	if !ok {
		c.add(rng, "module.%s: there is no module %q in %s", name, name, m.dir)
		return
	}
	output, ok := outputName(trav)
	if !ok || call.source == "" {
		return
	}
	child := c.modules[path.Clean(path.Join(m.dir, call.source))]
	if child != nil && !child.outputs[output] {
		c.add(rng, "module.%s.%s: %s declares no output %q; it has: %s",
			name, output, call.source, output, strings.Join(sortedKeys(child.outputs), ", "))
	}
}

// attrAt returns the attribute name of step i of a traversal.
func attrAt(trav hcl.Traversal, i int) (string, bool) {
	if len(trav) <= i {
		return "", false
	}
	a, ok := trav[i].(hcl.TraverseAttr)
	return a.Name, ok
}

// outputName returns Y of module.X.Y or module.X[key].Y.
func outputName(trav hcl.Traversal) (string, bool) {
	for _, step := range trav[2:] {
		switch s := step.(type) {
		case hcl.TraverseIndex:
			continue
		case hcl.TraverseAttr:
			return s.Name, true
		default:
			return "", false
		}
	}
	return "", false
}

func has[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
