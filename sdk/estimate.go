package sdk

import (
	"context"
	"fmt"
	"math"
)

// CapEstimate: Estimate says what a cluster would cost before it is
// created (see Estimator).
const CapEstimate Capability = "estimate"

// Estimator is implemented by providers that can say what a cluster of
// given inputs would cost by the hour, before anything is created. It is
// optional: Serve type-asserts it, and a Provider without it answers
// Unimplemented, so plugins built before it keep compiling and working. A
// provider that implements it declares CapEstimate. The dashboard shows
// nothing for a provider without it, never a made-up figure.
type Estimator interface {
	// Estimate prices a cluster of req.Inputs from the provider's own
	// price table, without calling the cloud (it needs no credentials).
	// Inputs the estimate cannot do without, or a value the table has no
	// price for (an instance type, a region), are an InvalidInput error
	// naming the field as inputs.<name>, as Validate does.
	Estimate(ctx context.Context, req EstimateRequest) (Estimate, error)
}

// EstimateRequest asks what a cluster of these inputs would cost.
type EstimateRequest struct {
	Inputs map[string]string
}

// Estimate is a cluster's hourly cost, item by item, in one currency.
type Estimate struct {
	// Currency is an ISO 4217 code, e.g. "USD".
	Currency string
	// Lines are the priced parts; Hourly is their sum.
	Lines  []CostLine
	Hourly float64
	// PriceDate is the day the price table was read (YYYY-MM-DD) and
	// Source where from (a URL or the name of the price list).
	PriceDate string
	Source    string
	// Excludes names what the estimate leaves out (data transfer,
	// storage a workload claims later, ...), so a reader knows.
	Excludes []string
}

// CostLine is one priced part: Quantity units of Item at UnitHourly each,
// Hourly in all.
type CostLine struct {
	Item string
	// Unit is what Quantity counts, e.g. "instance", "GiB".
	Unit       string
	Quantity   float64
	UnitHourly float64
	Hourly     float64
}

// Line prices quantity units of item at unitHourly each.
func Line(item, unit string, quantity, unitHourly float64) CostLine {
	return CostLine{Item: item, Unit: unit, Quantity: quantity, UnitHourly: math.Round(unitHourly*1e9) / 1e9, Hourly: round(quantity * unitHourly)}
}

// Total sets e.Hourly to the sum of its lines and returns e.
func (e Estimate) Total() Estimate {
	var sum float64
	for _, l := range e.Lines {
		sum += l.Hourly
	}
	e.Hourly = round(sum)
	return e
}

// Monthly is the hourly cost over 730 hours, the month cloud price lists use.
func Monthly(hourly float64) float64 { return round(hourly * 730) }

// round keeps six decimals: prices per hour go to fractions of a cent.
func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// String is the estimate in one line, e.g. "USD 0.1234/h from 3 items".
func (e Estimate) String() string {
	return fmt.Sprintf("%s %.4f/h from %d items (prices of %s)", e.Currency, e.Hourly, len(e.Lines), e.PriceDate)
}
