// Package soon is a provider for clouds KubeOpera lists but cannot provision
// yet: its Info says SOON and every lifecycle call fails with a
// FailedPrecondition error that names the cloud.
package soon

import (
	"context"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Provider answers GetInfo and refuses everything else.
type Provider struct {
	info  sdk.Info
	cloud string // shown in errors, e.g. "GCP"
}

// New returns a SOON provider describing itself with info.
func New(info sdk.Info, cloud string) *Provider {
	info.Availability = sdk.Soon
	info.Capabilities = nil
	return &Provider{info: info, cloud: cloud}
}

func (p *Provider) soon() error {
	return sdk.FailedPrecondition("%s provisioning: Soon. This provider is listed so you can see it coming; it cannot create clusters yet", p.cloud)
}

// GetInfo describes the provider.
func (p *Provider) GetInfo(context.Context) (sdk.Info, error) { return p.info, nil }

// Validate refuses: nothing can be validated for a SOON provider.
func (p *Provider) Validate(context.Context, sdk.ValidateRequest) error { return p.soon() }

// Provision refuses.
func (p *Provider) Provision(context.Context, sdk.ProvisionRequest) (sdk.Operation, error) {
	return sdk.Operation{}, p.soon()
}

// Status refuses.
func (p *Provider) Status(context.Context, sdk.StatusRequest) (sdk.OperationStatus, error) {
	return sdk.OperationStatus{}, p.soon()
}

// Kubeconfig refuses.
func (p *Provider) Kubeconfig(context.Context, sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	return sdk.Kubeconfig{}, p.soon()
}

// Destroy refuses.
func (p *Provider) Destroy(context.Context, sdk.DestroyRequest) (sdk.Operation, error) {
	return sdk.Operation{}, p.soon()
}
