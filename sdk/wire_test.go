package sdk

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	pb "github.com/ochestra-tech/kubeopera/sdk/internal/proto"
)

// failing returns err from every call, so a test can see what the host gets.
type failing struct{ err error }

func (f failing) GetInfo(context.Context) (Info, error)           { return Info{}, f.err }
func (f failing) Validate(context.Context, ValidateRequest) error { return f.err }
func (f failing) Provision(context.Context, ProvisionRequest) (Operation, error) {
	return Operation{}, f.err
}
func (f failing) Status(context.Context, StatusRequest) (OperationStatus, error) {
	return OperationStatus{}, f.err
}
func (f failing) Kubeconfig(context.Context, KubeconfigRequest) (Kubeconfig, error) {
	return Kubeconfig{}, f.err
}
func (f failing) Destroy(context.Context, DestroyRequest) (Operation, error) {
	return Operation{}, f.err
}

// dial serves impl over a real gRPC server on an in-memory listener and
// returns the client the host would use.
func dial(t *testing.T, impl Provider) Provider {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	pb.RegisterProviderServer(srv, &grpcServer{impl: impl})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &grpcClient{c: pb.NewProviderClient(conn)}
}

func TestErrorsCrossTheWireAsTheirKind(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		kind     Kind
		sentinel error
		retry    bool
		fields   []FieldError
	}{
		{"unimplemented", Unimplemented("no Destroy"), KindUnimplemented, ErrUnimplemented, false, nil},
		{"invalid input keeps field paths", InvalidInput(
			FieldError{"inputs.nodeCount", "must be between 1 and 100"},
			FieldError{"credentials.accessKeyId", "is not an AWS access key ID"}),
			KindInvalidInput, ErrInvalidInput, false, []FieldError{
				{"inputs.nodeCount", "must be between 1 and 100"},
				{"credentials.accessKeyId", "is not an AWS access key ID"}}},
		{"unavailable is retryable", Unavailable("ec2 throttled"), KindUnavailable, ErrUnavailable, true, nil},
		{"failed precondition", FailedPrecondition("GCP provisioning: Soon"), KindFailedPrecondition, ErrFailedPrecondition, false, nil},
		{"not found", NotFound("no operation x"), KindNotFound, ErrNotFound, false, nil},
		{"wrapped sdk error keeps its kind", fmt.Errorf("render: %w", Unavailable("s3")), KindUnavailable, ErrUnavailable, true, nil},
		{"plain error is internal", errors.New("boom"), KindInternal, nil, false, nil},
		{"context deadline is retryable", fmt.Errorf("wait: %w", context.DeadlineExceeded), KindDeadlineExceeded, ErrDeadlineExceeded, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := dial(t, failing{tc.err})
			_, err := p.Status(context.Background(), StatusRequest{OperationID: "x"})
			if got := KindOf(err); got != tc.kind {
				t.Fatalf("kind = %q, want %q (err %v)", got, tc.kind, err)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.sentinel)
			}
			if IsRetryable(err) != tc.retry {
				t.Errorf("IsRetryable = %v, want %v", IsRetryable(err), tc.retry)
			}
			if IsConnectionLost(err) {
				t.Errorf("a provider's own error was taken for a lost connection")
			}
			got := FieldErrors(err)
			if fmt.Sprint(got) != fmt.Sprint(tc.fields) {
				t.Errorf("fields = %v, want %v", got, tc.fields)
			}
		})
	}
}

func TestBrokenConnectionIsConnectionLostAndRetryable(t *testing.T) {
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	pb.RegisterProviderServer(srv, &grpcServer{impl: failing{}})
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv.Stop() // the "plugin" is gone
	p := &grpcClient{c: pb.NewProviderClient(conn)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = p.Status(ctx, StatusRequest{OperationID: "x"})
	if !IsConnectionLost(err) || !IsRetryable(err) {
		t.Fatalf("err = %v (kind %q): want a retryable lost connection", err, KindOf(err))
	}
}

func TestValuesRoundTrip(t *testing.T) {
	want := Info{
		Name: "x", DisplayName: "X", Cloud: "aws", Topologies: []string{"kubeadm"}, Availability: Soon,
		PluginVersion: "1.2.3", SDKVersion: Version, ProtocolVersion: ProtocolVersion,
		Schema: []InputField{{Name: "a", Type: Int, Default: "1", Required: false, Secret: true,
			Allowed: []string{"1", "3"}, Help: "h"}},
		Capabilities:   []Capability{CapValidate, CapDestroy, CapScale, CapUpgrade},
		NodeCountInput: "a", VersionInput: "v", Upgrades: []Upgrade{{From: "1.36", To: []string{"1.37"}}},
	}
	if got := infoFromProto(infoToProto(want)); fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
		t.Errorf("Info round trip:\n got %#v\nwant %#v", got, want)
	}
	st := OperationStatus{OperationID: "op", State: Failed, Message: "quota", Progress: 40,
		LogTail: []string{"a", "b"}, ErrorClass: UserFixable, NodeCount: 3, KubernetesVersion: "v1.37.2"}
	if got := statusFromProto(statusToProto(st)); fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", st) {
		t.Errorf("Status round trip:\n got %#v\nwant %#v", got, st)
	}
	exp := time.Unix(1_900_000_000, 0)
	if got := kubeconfigFromProto(kubeconfigToProto(Kubeconfig{Data: []byte("k"), ExpiresAt: exp})); !got.ExpiresAt.Equal(exp) {
		t.Errorf("expiry = %v, want %v", got.ExpiresAt, exp)
	}
	if got := kubeconfigFromProto(kubeconfigToProto(Kubeconfig{Data: []byte("k")})); !got.ExpiresAt.IsZero() {
		t.Errorf("no expiry came back as %v", got.ExpiresAt)
	}
}
