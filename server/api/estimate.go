package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// estimateRequest is POST /providers/{name}/estimate: the wizard's inputs
// as they stand.
type estimateRequest struct {
	Inputs map[string]string `json:"inputs" jsonschema:"required,description=the provider's inputs as the provision request would carry them; left-out inputs take their defaults"`
}

// estimateView is what a cluster of the inputs would cost, from the
// plugin's own price table.
type estimateView struct {
	// Currency is an ISO 4217 code, e.g. USD.
	Currency string         `json:"currency"`
	Lines    []costLineView `json:"lines"`
	Hourly   float64        `json:"hourly"`
	// Monthly is Hourly over 730 hours, the month cloud price lists use.
	Monthly   float64  `json:"monthly"`
	PriceDate string   `json:"priceDate" jsonschema:"description=the day the plugin's price table was read (YYYY-MM-DD)"`
	Source    string   `json:"source" jsonschema:"description=where the prices come from"`
	Excludes  []string `json:"excludes" jsonschema:"description=what the estimate leaves out"`
}

// costLineView is one priced part of the cluster.
type costLineView struct {
	Item       string  `json:"item"`
	Unit       string  `json:"unit"`
	Quantity   float64 `json:"quantity"`
	UnitHourly float64 `json:"unitHourly"`
	Hourly     float64 `json:"hourly"`
}

// estimateCost asks the plugin what a cluster of the inputs would cost by
// the hour, before anything is created: 404 for no such plugin, 409 for a
// plugin that gives no estimate (the wizard then shows none), 400 naming
// an input the plugin's price table cannot price.
func (s *server) estimateCost(c *fiber.Ctx) error {
	var req estimateRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	name := c.Params("name")
	p, err := s.providers.Provider(name)
	if err != nil {
		return problem(http.StatusNotFound, "no provider plugin named %q: GET /api/v1/providers lists them", name)
	}
	est, err := p.Estimate(c.UserContext(), sdk.EstimateRequest{Inputs: req.Inputs})
	if sdk.KindOf(err) == sdk.KindUnimplemented {
		return problem(http.StatusConflict, "provider %s gives no cost estimate", name)
	}
	if err != nil {
		return pluginProblem(name, err)
	}
	out := estimateView{Currency: est.Currency, Lines: []costLineView{}, Hourly: est.Hourly, Monthly: sdk.Monthly(est.Hourly),
		PriceDate: est.PriceDate, Source: est.Source, Excludes: orEmpty(est.Excludes)}
	for _, l := range est.Lines {
		out.Lines = append(out.Lines, costLineView{Item: l.Item, Unit: l.Unit, Quantity: l.Quantity, UnitHourly: l.UnitHourly, Hourly: l.Hourly})
	}
	return c.JSON(out)
}
