package sdk

import (
	"context"

	pb "github.com/ochestra-tech/kubeopera/sdk/internal/proto"
)

// Estimate serves the optional Estimator: a provider without it answers
// Unimplemented, as the generated server would for a plugin built before
// the call existed.
func (s *grpcServer) Estimate(ctx context.Context, r *pb.EstimateRequest) (*pb.EstimateResponse, error) {
	e, ok := s.impl.(Estimator)
	if !ok {
		return nil, toStatus(Unimplemented("this provider gives no cost estimate (it does not implement sdk.Estimator)"))
	}
	est, err := e.Estimate(ctx, EstimateRequest{Inputs: r.GetInputs()})
	if err != nil {
		return nil, toStatus(err)
	}
	return estimateToProto(est), nil
}

// Estimate calls the plugin's Estimate; a plugin built before the call
// existed answers Unimplemented.
func (c *grpcClient) Estimate(ctx context.Context, req EstimateRequest) (Estimate, error) {
	r, err := c.c.Estimate(ctx, &pb.EstimateRequest{Inputs: req.Inputs})
	if err != nil {
		return Estimate{}, fromStatus(err)
	}
	return estimateFromProto(r), nil
}

func estimateToProto(e Estimate) *pb.EstimateResponse {
	out := &pb.EstimateResponse{Currency: e.Currency, Hourly: e.Hourly, PriceDate: e.PriceDate, Source: e.Source, Excludes: e.Excludes}
	for _, l := range e.Lines {
		out.Lines = append(out.Lines, &pb.CostLine{Item: l.Item, Unit: l.Unit, Quantity: l.Quantity, UnitHourly: l.UnitHourly, Hourly: l.Hourly})
	}
	return out
}

func estimateFromProto(p *pb.EstimateResponse) Estimate {
	out := Estimate{Currency: p.GetCurrency(), Hourly: p.GetHourly(), PriceDate: p.GetPriceDate(), Source: p.GetSource(), Excludes: p.GetExcludes()}
	for _, l := range p.GetLines() {
		out.Lines = append(out.Lines, CostLine{Item: l.GetItem(), Unit: l.GetUnit(), Quantity: l.GetQuantity(),
			UnitHourly: l.GetUnitHourly(), Hourly: l.GetHourly()})
	}
	return out
}
