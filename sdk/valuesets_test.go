package sdk

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// constantsOf are the values of the constants of type typ declared in this
// package's files.
func constantsOf(t *testing.T, typ string) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != typ {
					continue
				}
				for _, val := range v.Values {
					if lit, ok := val.(*ast.BasicLit); ok {
						s, _ := strconv.Unquote(lit.Value)
						out = append(out, s)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// The lists the API document's enums come from hold every constant: a new
// capability or field type declared without being listed fails here.
func TestValueListsHoldEveryConstant(t *testing.T) {
	for typ, listed := range map[string][]string{
		"Capability": func() (s []string) {
			for _, c := range Capabilities {
				s = append(s, string(c))
			}
			return s
		}(),
		"FieldType": func() (s []string) {
			for _, f := range FieldTypes {
				s = append(s, string(f))
			}
			return s
		}(),
	} {
		slices.Sort(listed)
		if declared := constantsOf(t, typ); !slices.Equal(declared, listed) {
			t.Errorf("%s: declared %v, listed %v", typ, declared, listed)
		}
	}
}
