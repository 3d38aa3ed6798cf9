package sdk

import (
	"context"
	"errors"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	pb "github.com/ochestra-tech/kubeopera/sdk/internal/proto"
)

// This file converts between the public Go types and the generated protocol
// types, and between *Error and gRPC status codes.

var kindToCode = map[Kind]codes.Code{
	KindInternal:           codes.Internal,
	KindUnimplemented:      codes.Unimplemented,
	KindInvalidInput:       codes.InvalidArgument,
	KindUnavailable:        codes.Unavailable,
	KindFailedPrecondition: codes.FailedPrecondition,
	KindNotFound:           codes.NotFound,
	KindDeadlineExceeded:   codes.DeadlineExceeded,
}

// toStatus turns a provider's error into a gRPC status error.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		code := codes.Internal
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			code = codes.DeadlineExceeded
		case errors.Is(err, context.Canceled):
			code = codes.Canceled
		}
		return withOrigin(status.New(code, err.Error()), nil)
	}
	return withOrigin(status.New(kindToCode[e.Kind], e.Message), e.Fields)
}

// originDomain marks a status as produced by the provider, so the host can
// tell a provider's own Unavailable from a connection that broke.
const originDomain = "provider.kubeopera.io"

func withOrigin(st *status.Status, fields []FieldError) error {
	details := []protoadapt.MessageV1{&errdetails.ErrorInfo{Domain: originDomain, Reason: "PROVIDER_ERROR"}}
	if len(fields) > 0 {
		br := &errdetails.BadRequest{}
		for _, f := range fields {
			br.FieldViolations = append(br.FieldViolations,
				&errdetails.BadRequest_FieldViolation{Field: f.Field, Description: f.Message})
		}
		details = append(details, br)
	}
	if withDetails, err := st.WithDetails(details...); err == nil {
		st = withDetails
	}
	return st.Err()
}

// fromStatus turns a gRPC error back into *Error. Transport failures (the
// plugin process died, the connection dropped) arrive as codes.Unavailable
// and so become retryable.
func fromStatus(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return &Error{Kind: KindInternal, Message: err.Error()}
	}
	if st.Code() == codes.Canceled {
		return context.Canceled
	}
	e := &Error{Kind: KindInternal, Message: st.Message()}
	for k, c := range kindToCode {
		if c == st.Code() {
			e.Kind = k
		}
	}
	fromProvider := false
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			fromProvider = fromProvider || d.GetDomain() == originDomain
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				e.Fields = append(e.Fields, FieldError{Field: v.GetField(), Message: v.GetDescription()})
			}
		}
	}
	if !fromProvider && (e.Kind == KindUnavailable || e.Kind == KindInternal) {
		e.Kind = KindUnavailable
		e.connectionLost = true
		e.Message = "connection to plugin lost: " + e.Message
	}
	return e
}

var availabilityToProto = map[Availability]pb.Availability{
	Available: pb.Availability_AVAILABILITY_AVAILABLE,
	Soon:      pb.Availability_AVAILABILITY_SOON,
}

var fieldTypeToProto = map[FieldType]pb.FieldType{
	String:        pb.FieldType_FIELD_TYPE_STRING,
	Int:           pb.FieldType_FIELD_TYPE_INT,
	Bool:          pb.FieldType_FIELD_TYPE_BOOL,
	CredentialRef: pb.FieldType_FIELD_TYPE_CREDENTIAL,
}

var stateToProto = map[State]pb.State{
	Pending:   pb.State_STATE_PENDING,
	Running:   pb.State_STATE_RUNNING,
	Succeeded: pb.State_STATE_SUCCEEDED,
	Failed:    pb.State_STATE_FAILED,
}

var errorClassToProto = map[ErrorClass]pb.ErrorClass{
	NoError:     pb.ErrorClass_ERROR_CLASS_UNSPECIFIED,
	UserFixable: pb.ErrorClass_ERROR_CLASS_USER_FIXABLE,
	Retryable:   pb.ErrorClass_ERROR_CLASS_RETRYABLE,
	Terminal:    pb.ErrorClass_ERROR_CLASS_TERMINAL,
}

// reverse inverts one of the maps above; an unknown wire value becomes the
// zero value of K.
func reverse[K comparable, V comparable](m map[K]V) map[V]K {
	r := make(map[V]K, len(m))
	for k, v := range m {
		r[v] = k
	}
	return r
}

var (
	availabilityFromProto = reverse(availabilityToProto)
	fieldTypeFromProto    = reverse(fieldTypeToProto)
	stateFromProto        = reverse(stateToProto)
	errorClassFromProto   = reverse(errorClassToProto)
)

func infoToProto(i Info) *pb.Info {
	out := &pb.Info{
		Name:            i.Name,
		DisplayName:     i.DisplayName,
		Cloud:           i.Cloud,
		Topologies:      i.Topologies,
		Availability:    availabilityToProto[i.Availability],
		PluginVersion:   i.PluginVersion,
		SdkVersion:      i.SDKVersion,
		ProtocolVersion: int32(i.ProtocolVersion),
	}
	out.RegionInput, out.ClusterSource = i.RegionInput, i.ClusterSource
	out.NodeCountInput, out.VersionInput = i.NodeCountInput, i.VersionInput
	for _, u := range i.Upgrades {
		out.Upgrades = append(out.Upgrades, &pb.Upgrade{From: u.From, To: u.To})
	}
	out.Schema = fieldsToProto(i.Schema)
	for _, k := range i.CredentialKinds {
		out.CredentialKinds = append(out.CredentialKinds, &pb.CredentialKind{Name: k.Name, DisplayName: k.DisplayName,
			Help: k.Help, Fields: fieldsToProto(k.Fields), Last4Field: k.Last4Field})
	}
	for _, c := range i.Capabilities {
		out.Capabilities = append(out.Capabilities, string(c))
	}
	return out
}

func infoFromProto(p *pb.Info) Info {
	out := Info{
		Name:            p.GetName(),
		DisplayName:     p.GetDisplayName(),
		Cloud:           p.GetCloud(),
		Topologies:      p.GetTopologies(),
		Availability:    availabilityFromProto[p.GetAvailability()],
		PluginVersion:   p.GetPluginVersion(),
		SDKVersion:      p.GetSdkVersion(),
		ProtocolVersion: int(p.GetProtocolVersion()),
	}
	out.RegionInput, out.ClusterSource = p.GetRegionInput(), p.GetClusterSource()
	out.NodeCountInput, out.VersionInput = p.GetNodeCountInput(), p.GetVersionInput()
	for _, u := range p.GetUpgrades() {
		out.Upgrades = append(out.Upgrades, Upgrade{From: u.GetFrom(), To: u.GetTo()})
	}
	out.Schema = fieldsFromProto(p.GetSchema())
	for _, k := range p.GetCredentialKinds() {
		out.CredentialKinds = append(out.CredentialKinds, CredentialKind{Name: k.GetName(), DisplayName: k.GetDisplayName(),
			Help: k.GetHelp(), Fields: fieldsFromProto(k.GetFields()), Last4Field: k.GetLast4Field()})
	}
	for _, c := range p.GetCapabilities() {
		out.Capabilities = append(out.Capabilities, Capability(c))
	}
	return out
}

func fieldsToProto(fields []InputField) []*pb.InputField {
	var out []*pb.InputField
	for _, f := range fields {
		out = append(out, &pb.InputField{
			Name: f.Name, Type: fieldTypeToProto[f.Type], Default: f.Default,
			Required: f.Required, Secret: f.Secret, Allowed: f.Allowed, Help: f.Help,
			Label: f.Label, Description: f.Description, Order: int32(f.Order), Group: f.Group,
			Min: f.Min, Max: f.Max, Pattern: f.Pattern, Multiline: f.Multiline, CredentialKinds: f.CredentialKinds,
		})
	}
	return out
}

func fieldsFromProto(fields []*pb.InputField) []InputField {
	var out []InputField
	for _, f := range fields {
		out = append(out, InputField{
			Name: f.GetName(), Type: fieldTypeFromProto[f.GetType()], Default: f.GetDefault(),
			Required: f.GetRequired(), Secret: f.GetSecret(), Allowed: f.GetAllowed(), Help: f.GetHelp(),
			Label: f.GetLabel(), Description: f.GetDescription(), Order: int(f.GetOrder()), Group: f.GetGroup(),
			Min: f.Min, Max: f.Max, Pattern: f.GetPattern(), Multiline: f.GetMultiline(), CredentialKinds: f.GetCredentialKinds(),
		})
	}
	return out
}

func statusToProto(s OperationStatus) *pb.OperationStatus {
	return &pb.OperationStatus{
		OperationId: s.OperationID,
		State:       stateToProto[s.State],
		Message:     s.Message,
		Progress:    int32(s.Progress),
		LogTail:     s.LogTail,
		ErrorClass:  errorClassToProto[s.ErrorClass],
		NodeCount:   int32(s.NodeCount),

		KubernetesVersion: s.KubernetesVersion,
	}
}

func statusFromProto(p *pb.OperationStatus) OperationStatus {
	return OperationStatus{
		OperationID: p.GetOperationId(),
		State:       stateFromProto[p.GetState()],
		Message:     p.GetMessage(),
		Progress:    int(p.GetProgress()),
		LogTail:     p.GetLogTail(),
		ErrorClass:  errorClassFromProto[p.GetErrorClass()],
		NodeCount:   int(p.GetNodeCount()),

		KubernetesVersion: p.GetKubernetesVersion(),
	}
}

func kubeconfigToProto(k Kubeconfig) *pb.KubeconfigResponse {
	out := &pb.KubeconfigResponse{Kubeconfig: k.Data}
	if !k.ExpiresAt.IsZero() {
		out.ExpiresAtUnix = k.ExpiresAt.Unix()
	}
	return out
}

func kubeconfigFromProto(p *pb.KubeconfigResponse) Kubeconfig {
	out := Kubeconfig{Data: p.GetKubeconfig()}
	if p.GetExpiresAtUnix() != 0 {
		out.ExpiresAt = time.Unix(p.GetExpiresAtUnix(), 0)
	}
	return out
}
