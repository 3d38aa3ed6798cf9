package awsprovider

import (
	"context"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Provider serves Info and Validate for real; the lifecycle calls answer
// Unimplemented until the provisioning work for each plugin lands.
type Provider struct {
	opts Options
}

// New returns the provider described by o.
func New(o Options) *Provider { return &Provider{opts: o} }

// GetInfo describes the provider.
func (p *Provider) GetInfo(context.Context) (sdk.Info, error) {
	return sdk.Info{
		Name:          p.opts.Name,
		DisplayName:   p.opts.DisplayName,
		Cloud:         "aws",
		Topologies:    []string{p.opts.Topology},
		Availability:  sdk.Available,
		PluginVersion: p.opts.Version,
		Schema:        Schema(p.opts),
		Capabilities:  []sdk.Capability{sdk.CapValidate},
	}, nil
}

// Validate checks inputs and credentials.
func (p *Provider) Validate(_ context.Context, req sdk.ValidateRequest) error {
	return sdk.InvalidInput(Validate(p.opts, req.Inputs, req.Credentials)...)
}

func (p *Provider) unimplemented(call string) error {
	return sdk.Unimplemented("%s: %s is not implemented in this plugin version yet", p.opts.Name, call)
}

// Provision is not implemented yet.
func (p *Provider) Provision(context.Context, sdk.ProvisionRequest) (sdk.Operation, error) {
	return sdk.Operation{}, p.unimplemented("Provision")
}

// Status is not implemented yet.
func (p *Provider) Status(context.Context, sdk.StatusRequest) (sdk.OperationStatus, error) {
	return sdk.OperationStatus{}, p.unimplemented("Status")
}

// Kubeconfig is not implemented yet.
func (p *Provider) Kubeconfig(context.Context, sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	return sdk.Kubeconfig{}, p.unimplemented("Kubeconfig")
}

// Destroy is not implemented yet.
func (p *Provider) Destroy(context.Context, sdk.DestroyRequest) (sdk.Operation, error) {
	return sdk.Operation{}, p.unimplemented("Destroy")
}
