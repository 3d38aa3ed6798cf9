package awsprovider

import (
	"context"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// docs/aws.md's cost table is the estimate of each topology's defaults
// (t3.medium, 2 workers, us-east-1), to the cent it shows: the wizard and
// the docs give one figure.
func TestTheDocsCostTableIsTheEstimate(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/aws.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]struct {
		p  *Provider
		in map[string]string
	}{
		"aws-eks":                       {EKS("test"), map[string]string{"region": "us-east-1"}},
		"aws-vanilla, 1 control plane":  {Vanilla("test"), map[string]string{"region": "us-east-1"}},
		"aws-vanilla, 3 control planes": {Vanilla("test"), map[string]string{"region": "us-east-1", "controlPlaneCount": "3"}},
	}
	for row, c := range rows {
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(row) + ` \|.*about \*\*\$([0-9.]+)\*\* \|$`).FindSubmatch(doc)
		if m == nil {
			t.Errorf("docs/aws.md has no cost row %q", row)
			continue
		}
		est, err := c.p.Estimate(context.Background(), sdk.EstimateRequest{Inputs: c.in})
		if err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		if got := fmt.Sprintf("%.2f", est.Hourly); got != string(m[1]) {
			t.Errorf("%s: the estimate is $%s/h (%+v), docs/aws.md says $%s", row, got, est.Lines, m[1])
		}
	}
	if !strings.Contains(string(doc), "as assumed on "+prices.Date) {
		t.Errorf("docs/aws.md does not give the price table's date, %s", prices.Date)
	}
}

// The estimate follows the inputs: each worker and control plane adds an
// instance and its root volume, a second control plane the internal load
// balancer.
func TestTheEstimateFollowsTheInputs(t *testing.T) {
	ctx := context.Background()
	hourly := func(p *Provider, in map[string]string) float64 {
		t.Helper()
		in["region"] = "us-east-1"
		est, err := p.Estimate(ctx, sdk.EstimateRequest{Inputs: in})
		if err != nil {
			t.Fatal(err)
		}
		if est.Currency != "USD" || est.PriceDate != prices.Date || est.Source == "" {
			t.Errorf("estimate %+v lacks its currency, date or source", est)
		}
		return est.Hourly
	}
	r := prices.Regions["us-east-1"]
	node := r.Instances["t3.medium"] + eksRootGiB*r.GP3PerGiB
	if d := hourly(EKS("t"), map[string]string{"nodeCount": "5"}) - hourly(EKS("t"), map[string]string{"nodeCount": "2"}); math.Abs(d-3*node) > 1e-5 {
		t.Errorf("3 more EKS nodes add $%.4f/h, want $%.4f", d, 3*node)
	}
	large := hourly(EKS("t"), map[string]string{"instanceType": "t3.large"}) - hourly(EKS("t"), map[string]string{})
	if math.Abs(large-2*(r.Instances["t3.large"]-r.Instances["t3.medium"])) > 1e-5 {
		t.Errorf("t3.large instead of t3.medium adds $%.4f/h for 2 nodes", large)
	}
	vnode := r.Instances["t3.medium"] + vanillaRootGiB*r.GP3PerGiB
	if d := hourly(Vanilla("t"), map[string]string{"controlPlaneCount": "3"}) - hourly(Vanilla("t"), map[string]string{}); math.Abs(d-(2*vnode+r.LoadBalancer)) > 1e-5 {
		t.Errorf("2 more control planes add $%.4f/h, want 2 nodes and the internal load balancer, $%.4f", d, 2*vnode+r.LoadBalancer)
	}
}

// What the table has no price for is refused, naming the field and what
// the table has: never a figure made up from another region or type.
func TestTheEstimateRefusesWhatTheTableCannotPrice(t *testing.T) {
	cases := []struct {
		in    map[string]string
		field string
		says  string
	}{
		{map[string]string{"region": "eu-north-1"}, "inputs.region", `no prices for "eu-north-1"; it has us-east-1`},
		{map[string]string{"region": "us-east-1", "instanceType": "x9.huge"}, "inputs.instanceType", `no price for "x9.huge" in us-east-1`},
		{map[string]string{"region": "us-east-1", "nodeCount": "many"}, "inputs.nodeCount", "from 1 to 100"},
	}
	for _, c := range cases {
		_, err := EKS("t").Estimate(context.Background(), sdk.EstimateRequest{Inputs: c.in})
		fe := sdk.FieldErrors(err)
		if sdk.KindOf(err) != sdk.KindInvalidInput || len(fe) != 1 || fe[0].Field != c.field || !strings.Contains(fe[0].Message, c.says) {
			t.Errorf("Estimate(%v) = %v, want InvalidInput on %s saying %q", c.in, err, c.field, c.says)
		}
	}
}
