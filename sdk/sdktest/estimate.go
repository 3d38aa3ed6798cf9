package sdktest

import (
	"math"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// estimateSane checks a provider that declares "estimate": an estimate of
// Config.EstimateInputs (else the valid inputs) names its currency, its price table's date and source,
// and its total is the sum of its lines.
func (k *kit) estimateSane(t *testing.T) {
	if !k.info.Has(sdk.CapEstimate) {
		t.Skipf("the provider does not declare %q", sdk.CapEstimate)
	}
	e, ok := k.prov.(sdk.Estimator)
	if !ok {
		t.Fatal("the SDK's client does not implement sdk.Estimator")
	}
	in := k.cfg.EstimateInputs
	if in == nil {
		in = k.cfg.ValidInputs
	}
	est, err := e.Estimate(k.ctx(t), sdk.EstimateRequest{Inputs: in})
	if err != nil {
		t.Fatalf("Estimate of Config.EstimateInputs (else ValidInputs) %v: %v", in, err)
	}
	if len(est.Currency) != 3 || est.Source == "" || len(est.Lines) == 0 {
		t.Errorf("estimate %+v: want an ISO 4217 currency, a source and at least one line", est)
	}
	if _, err := time.Parse(time.DateOnly, est.PriceDate); err != nil {
		t.Errorf("estimate's price date %q: %v", est.PriceDate, err)
	}
	var sum float64
	for _, l := range est.Lines {
		if l.Item == "" || l.Hourly < 0 || math.Abs(l.Quantity*l.UnitHourly-l.Hourly) > 1e-5 {
			t.Errorf("line %+v: want an item and Hourly = Quantity × UnitHourly", l)
		}
		sum += l.Hourly
	}
	if math.Abs(sum-est.Hourly) > 1e-5 {
		t.Errorf("estimate's hourly %v is not the sum of its lines, %v", est.Hourly, sum)
	}
}
