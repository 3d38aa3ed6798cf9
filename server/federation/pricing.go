package federation

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// Node labels that carry a node's instance type; the beta one is what
// clusters older than Kubernetes 1.17 (and some still-running kubelets) set.
const (
	instanceTypeLabel     = "node.kubernetes.io/instance-type"
	betaInstanceTypeLabel = "beta.kubernetes.io/instance-type"
)

// defaultHoursPerMonth is used when a pricing file leaves hoursPerMonth out;
// 730 is 365 × 24 / 12, the figure cloud providers bill a month by.
const defaultHoursPerMonth = 730

//go:embed pricing/aws.json
var awsPricing []byte

// Pricing maps instance types to on-demand hourly prices. Its JSON form is
//
//	{"currency":"USD","region":"us-east-1","hoursPerMonth":730,"prices":{"t3.medium":0.0416}}
//
// where region is informational, currency defaults to USD and hoursPerMonth
// to 730. Get one from DefaultPricing or LoadPricing, which validate it.
type Pricing struct {
	// Currency is the ISO 4217 code prices are in.
	Currency string `json:"currency"`
	// Region names where the prices were taken from; informational only.
	Region string `json:"region,omitempty"`
	// HoursPerMonth turns an hourly price into a monthly one.
	HoursPerMonth float64 `json:"hoursPerMonth"`
	// Prices maps an instance type (e.g. "m5.large") to its hourly price.
	Prices map[string]float64 `json:"prices"`
}

var defaultPricing = sync.OnceValues(func() (*Pricing, error) {
	return parsePricing(awsPricing, "embedded pricing/aws.json")
})

// DefaultPricing returns the built-in table: on-demand Linux prices of common
// AWS instance types in us-east-1, in USD. Each call returns a fresh copy, so
// callers may change it.
func DefaultPricing() *Pricing {
	p, err := defaultPricing()
	if err != nil {
		// The file is compiled in and checked by the tests.
		panic(err)
	}
	c := *p
	c.Prices = maps.Clone(p.Prices)
	return &c
}

// LoadPricing reads and validates a pricing table in the JSON form described
// on Pricing, for example one named by KUBEOPERA_PRICING_FILE.
func LoadPricing(path string) (*Pricing, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read pricing file: %w", err)
	}
	return parsePricing(data, "pricing file "+path)
}

// parsePricing decodes and validates data; source names it in errors.
func parsePricing(data []byte, source string) (*Pricing, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Pricing
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", source, describeJSONError(data, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: unexpected data after the JSON object", source)
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return &p, nil
}

// validate fills defaults and rejects tables that would price nodes wrongly.
func (p *Pricing) validate() error {
	if p.Currency == "" {
		p.Currency = "USD"
	}
	switch {
	case p.HoursPerMonth == 0:
		p.HoursPerMonth = defaultHoursPerMonth
	case p.HoursPerMonth < 0 || p.HoursPerMonth > 744:
		return fmt.Errorf("hoursPerMonth is %v; it must be between 1 and 744 (31 days)", p.HoursPerMonth)
	}
	if len(p.Prices) == 0 {
		return errors.New(`"prices" is empty; list at least one instance type with its hourly price, e.g. {"t3.medium": 0.0416}`)
	}
	types := make([]string, 0, len(p.Prices))
	for t := range p.Prices {
		types = append(types, t)
	}
	sort.Strings(types) // so the first bad entry reported is stable
	for _, t := range types {
		if t == "" {
			return errors.New(`"prices" has an entry with an empty instance type`)
		}
		if price := p.Prices[t]; price <= 0 {
			return fmt.Errorf("price of %q is %v; prices must be positive hourly amounts", t, price)
		}
	}
	return nil
}

// describeJSONError adds the line and column to a syntax or type error, so a
// user editing the file can find the mistake.
func describeJSONError(data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		return fmt.Errorf("line %d, column %d: in %q: expected a JSON %s, found a %s", line, col, typ.Field, jsonKind(typ.Type), typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("file is empty or ends early: %w", err)
	}
	return err
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

// InstanceType returns the instance type a node is labelled with, or "".
func InstanceType(n *corev1.Node) string {
	if t := n.Labels[instanceTypeLabel]; t != "" {
		return t
	}
	return n.Labels[betaInstanceTypeLabel]
}

// MonthlyCost sums the monthly price of the nodes whose instance type is in
// the table; the others are counted in unpriced rather than guessed.
func (p *Pricing) MonthlyCost(nodes []corev1.Node) (cost float64, unpriced int) {
	for i := range nodes {
		hourly, ok := p.Prices[InstanceType(&nodes[i])]
		if !ok {
			unpriced++
			continue
		}
		cost += hourly * p.HoursPerMonth
	}
	return cost, unpriced
}
