package tfmodules

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// statement is one statement of an aws_iam_policy_document, read from the
// module text: each value is evaluated where ctx can, else kept as the
// expression's source text (e.g. "aws_iam_openid_connect_provider.this.arn").
type statement struct {
	sid                string
	actions, resources []string
	principalType      string
	principals         []string
	conditions         []condition
}

type condition struct {
	test, variable string
	values         []string
}

// policyStatements returns the statements of data "aws_iam_policy_document" name.
func policyStatements(t *testing.T, files []computeFile, ctx *hcl.EvalContext, name string) []statement {
	t.Helper()
	_, b, src := block(t, files, "data", "aws_iam_policy_document", name)
	var out []statement
	for _, sb := range b.Body.Blocks {
		if sb.Type != "statement" {
			continue
		}
		st := statement{sid: one(attrValues(sb.Body, "sid", ctx, src)), actions: attrValues(sb.Body, "actions", ctx, src),
			resources: attrValues(sb.Body, "resources", ctx, src)}
		for _, nb := range sb.Body.Blocks {
			switch nb.Type {
			case "principals":
				st.principalType = one(attrValues(nb.Body, "type", ctx, src))
				st.principals = attrValues(nb.Body, "identifiers", ctx, src)
			case "condition":
				st.conditions = append(st.conditions, condition{test: one(attrValues(nb.Body, "test", ctx, src)),
					variable: one(attrValues(nb.Body, "variable", ctx, src)), values: attrValues(nb.Body, "values", ctx, src)})
			}
		}
		out = append(out, st)
	}
	return out
}

func one(l []string) string { return strings.Join(l, ",") }

// attrValues evaluates a string or list-of-strings attribute; an element
// (or the whole expression) ctx cannot evaluate is its source text.
func attrValues(body *hclsyntax.Body, name string, ctx *hcl.EvalContext, src []byte) []string {
	a, ok := body.Attributes[name]
	if !ok {
		return nil
	}
	exprs := []hclsyntax.Expression{a.Expr}
	if tuple, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok {
		exprs = tuple.Exprs
	}
	var out []string
	for _, e := range exprs {
		v, diags := e.Value(ctx)
		if !diags.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			out = append(out, v.AsString())
			continue
		}
		out = append(out, string(e.Range().SliceBytes(src)))
	}
	return out
}
