package sdk

import (
	"context"
	"errors"
	"net"
	"reflect"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	pb "github.com/ochestra-tech/kubeopera/sdk/internal/proto"
)

// pricer is a Provider that implements Estimator and records what it got.
type pricer struct {
	failing
	got EstimateRequest
}

func (p *pricer) Estimate(_ context.Context, r EstimateRequest) (Estimate, error) {
	p.got = r
	if r.Inputs["nodeCount"] == "" {
		return Estimate{}, InvalidInput(FieldError{Field: "nodeCount", Message: "is required"})
	}
	return Estimate{Currency: "USD", PriceDate: "2026-12-01", Source: "https://aws.amazon.com/ec2/pricing/on-demand/",
		Lines:    []CostLine{Line("t3.medium", "instance", 3, 0.0416), Line("EKS control plane", "cluster", 1, 0.10)},
		Excludes: []string{"data transfer"}}.Total(), nil
}

// Estimate is optional: a Provider without it answers Unimplemented over
// the wire, and so does a plugin built before the call existed (its
// generated server lacks the method); one with it gets the inputs and its
// answer, errors included, comes back whole.
func TestEstimateIsAnOptionalInterface(t *testing.T) {
	ctx := context.Background()
	if _, err := dial(t, failing{}).(Estimator).Estimate(ctx, EstimateRequest{}); !errors.Is(err, ErrUnimplemented) {
		t.Errorf("Estimate of a provider without Estimator = %v (kind %q), want Unimplemented", err, KindOf(err))
	}
	if _, err := dialServer(t, pb.UnimplementedProviderServer{}).Estimate(ctx, EstimateRequest{}); !errors.Is(err, ErrUnimplemented) {
		t.Errorf("Estimate of a plugin built before the call = %v (kind %q), want Unimplemented", err, KindOf(err))
	}

	impl := &pricer{}
	got, err := dial(t, impl).(Estimator).Estimate(ctx, EstimateRequest{Inputs: map[string]string{"nodeCount": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := (&pricer{}).Estimate(ctx, EstimateRequest{Inputs: map[string]string{"nodeCount": "3"}})
	if !reflect.DeepEqual(got, want) || impl.got.Inputs["nodeCount"] != "3" {
		t.Fatalf("Estimate over the wire = %+v, want %+v (the provider got %+v)", got, want, impl.got)
	}
	if got.Hourly != 0.2248 || got.Lines[0].Hourly != 0.1248 {
		t.Errorf("hourly = %v (first line %v), want 0.2248 (0.1248)", got.Hourly, got.Lines[0].Hourly)
	}
	_, err = dial(t, impl).(Estimator).Estimate(ctx, EstimateRequest{Inputs: map[string]string{}})
	if fe := FieldErrors(err); KindOf(err) != KindInvalidInput || len(fe) != 1 || fe[0].Field != "nodeCount" {
		t.Errorf("Estimate without a node count = %v, want InvalidInput naming nodeCount", err)
	}
}

// dialServer connects a client to a generated server as it is, with no
// SDK adapter in front: what the host meets in a plugin built long ago.
func dialServer(t *testing.T, srv pb.ProviderServer) *grpcClient {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	pb.RegisterProviderServer(s, srv)
	go func() { _ = s.Serve(lis) }()
	t.Cleanup(s.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &grpcClient{c: pb.NewProviderClient(conn)}
}
