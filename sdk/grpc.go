package sdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/ochestra-tech/kubeopera/sdk/internal/proto"
)

// providerPlugin is the go-plugin glue: it serves a Provider on the plugin
// side and hands the host a Provider backed by a gRPC client.
type providerPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl Provider
}

func (p *providerPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterProviderServer(s, &grpcServer{impl: p.impl})
	return nil
}

func (p *providerPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &grpcClient{c: pb.NewProviderClient(c)}, nil
}

// grpcServer adapts a Provider to the generated server interface.
type grpcServer struct {
	pb.UnimplementedProviderServer
	impl Provider
}

func (s *grpcServer) GetInfo(ctx context.Context, _ *pb.GetInfoRequest) (*pb.Info, error) {
	info, err := s.impl.GetInfo(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	info.SDKVersion = Version
	info.ProtocolVersion = ProtocolVersion
	return infoToProto(info), nil
}

func (s *grpcServer) Validate(ctx context.Context, r *pb.ValidateRequest) (*pb.ValidateResponse, error) {
	err := s.impl.Validate(ctx, ValidateRequest{Inputs: r.GetInputs(), Credentials: r.GetCredentials()})
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.ValidateResponse{}, nil
}

func (s *grpcServer) Provision(ctx context.Context, r *pb.ProvisionRequest) (*pb.Operation, error) {
	op, err := s.impl.Provision(ctx, ProvisionRequest{
		ClusterID: r.GetClusterId(), Inputs: r.GetInputs(), Credentials: r.GetCredentials(),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.Operation{OperationId: op.ID}, nil
}

func (s *grpcServer) Status(ctx context.Context, r *pb.StatusRequest) (*pb.OperationStatus, error) {
	st, err := s.impl.Status(ctx, StatusRequest{OperationID: r.GetOperationId(), Credentials: r.GetCredentials()})
	if err != nil {
		return nil, toStatus(err)
	}
	return statusToProto(st), nil
}

func (s *grpcServer) Kubeconfig(ctx context.Context, r *pb.KubeconfigRequest) (*pb.KubeconfigResponse, error) {
	kc, err := s.impl.Kubeconfig(ctx, KubeconfigRequest{OperationID: r.GetOperationId(), Credentials: r.GetCredentials()})
	if err != nil {
		return nil, toStatus(err)
	}
	return kubeconfigToProto(kc), nil
}

func (s *grpcServer) Destroy(ctx context.Context, r *pb.DestroyRequest) (*pb.Operation, error) {
	op, err := s.impl.Destroy(ctx, DestroyRequest{
		ClusterID: r.GetClusterId(), Inputs: r.GetInputs(), Credentials: r.GetCredentials(),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.Operation{OperationId: op.ID}, nil
}

// Update serves the optional Updater: a provider without it answers
// Unimplemented, as the generated server would for a plugin built before
// the call existed.
func (s *grpcServer) Update(ctx context.Context, r *pb.UpdateRequest) (*pb.Operation, error) {
	u, ok := s.impl.(Updater)
	if !ok {
		return nil, toStatus(Unimplemented("this provider cannot change a running cluster (it does not implement sdk.Updater)"))
	}
	op, err := u.Update(ctx, UpdateRequest{ClusterID: r.GetClusterId(), Inputs: r.GetInputs(), Credentials: r.GetCredentials(),
		NodeCount: int(r.GetNodeCount()), KubernetesVersion: r.GetKubernetesVersion(),
		CurrentKubernetesVersion: r.GetCurrentKubernetesVersion(), CurrentInputs: r.GetCurrentInputs()})
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.Operation{OperationId: op.ID}, nil
}

// grpcClient is the host's view of a plugin: a Provider whose errors are
// *Error values rebuilt from gRPC status codes.
type grpcClient struct {
	c pb.ProviderClient
}

func (c *grpcClient) GetInfo(ctx context.Context) (Info, error) {
	r, err := c.c.GetInfo(ctx, &pb.GetInfoRequest{})
	if err != nil {
		return Info{}, fromStatus(err)
	}
	return infoFromProto(r), nil
}

func (c *grpcClient) Validate(ctx context.Context, req ValidateRequest) error {
	_, err := c.c.Validate(ctx, &pb.ValidateRequest{Inputs: req.Inputs, Credentials: req.Credentials})
	return fromStatus(err)
}

func (c *grpcClient) Provision(ctx context.Context, req ProvisionRequest) (Operation, error) {
	r, err := c.c.Provision(ctx, &pb.ProvisionRequest{
		ClusterId: req.ClusterID, Inputs: req.Inputs, Credentials: req.Credentials,
	})
	if err != nil {
		return Operation{}, fromStatus(err)
	}
	return Operation{ID: r.GetOperationId()}, nil
}

func (c *grpcClient) Status(ctx context.Context, req StatusRequest) (OperationStatus, error) {
	r, err := c.c.Status(ctx, &pb.StatusRequest{OperationId: req.OperationID, Credentials: req.Credentials})
	if err != nil {
		return OperationStatus{}, fromStatus(err)
	}
	return statusFromProto(r), nil
}

func (c *grpcClient) Kubeconfig(ctx context.Context, req KubeconfigRequest) (Kubeconfig, error) {
	r, err := c.c.Kubeconfig(ctx, &pb.KubeconfigRequest{OperationId: req.OperationID, Credentials: req.Credentials})
	if err != nil {
		return Kubeconfig{}, fromStatus(err)
	}
	return kubeconfigFromProto(r), nil
}

func (c *grpcClient) Destroy(ctx context.Context, req DestroyRequest) (Operation, error) {
	r, err := c.c.Destroy(ctx, &pb.DestroyRequest{
		ClusterId: req.ClusterID, Inputs: req.Inputs, Credentials: req.Credentials,
	})
	if err != nil {
		return Operation{}, fromStatus(err)
	}
	return Operation{ID: r.GetOperationId()}, nil
}

// Update calls the plugin's Update; a plugin built before the call existed
// answers Unimplemented.
func (c *grpcClient) Update(ctx context.Context, req UpdateRequest) (Operation, error) {
	r, err := c.c.Update(ctx, &pb.UpdateRequest{ClusterId: req.ClusterID, Inputs: req.Inputs, Credentials: req.Credentials,
		NodeCount: int32(req.NodeCount), KubernetesVersion: req.KubernetesVersion,
		CurrentKubernetesVersion: req.CurrentKubernetesVersion, CurrentInputs: req.CurrentInputs})
	if err != nil {
		return Operation{}, fromStatus(err)
	}
	return Operation{ID: r.GetOperationId()}, nil
}
