package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// provisionRequest is POST /clusters/provision. Inputs are the plugin's own
// (region, sizes, kubernetesVersion, credentialRef, ...), checked against
// its schema and its Validate.
type provisionRequest struct {
	Name     string            `json:"name"`
	Provider string            `json:"provider"`
	Topology string            `json:"topology"`
	Inputs   map[string]string `json:"inputs"`
	pipelineRequest
}

// provisioningFlows maps the plugins this server can drive to the cluster
// source and HostCluster mode they produce.
var provisioningFlows = map[string]struct {
	source store.Source
	mode   hostclusters.Mode
}{
	"aws-vanilla": {store.SourceProvisionedVanilla, hostclusters.ProvisionVanilla},
	"aws-eks":     {store.SourceProvisionedEKS, hostclusters.ProvisionEKS},
}

func (r provisionRequest) check() error {
	return collect(append([]*FieldProblem{checkName("name", r.Name)}, r.checks()...)...)
}

func (s *server) provisionCluster(c *fiber.Ctx) error {
	var r provisionRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	if err := r.check(); err != nil {
		return err
	}
	prov, info, err := s.provider(c, r.Provider)
	if err != nil {
		return err
	}
	if info.Availability != sdk.Available {
		return problem(http.StatusUnprocessableEntity, "provider %s (%s) is not available yet: it is listed as coming soon", r.Provider, info.DisplayName)
	}
	flow, ok := provisioningFlows[r.Provider]
	if !ok {
		return problem(http.StatusUnprocessableEntity, "provider %s has no provisioning flow in this KubeOpera version", r.Provider)
	}
	if r.Topology == "" && len(info.Topologies) > 0 {
		r.Topology = info.Topologies[0]
	}
	if err := collect(checkTopology("topology", r.Topology, info.Topologies)); err != nil {
		return err
	}
	inputs := sdk.WithDefaults(info.Schema, r.Inputs)
	credRef := inputs["credentialRef"]
	var creds sdk.Credentials
	if credRef != "" {
		if creds, err = s.resolveCredentials(c, credRef); errors.Is(err, sdk.ErrNotFound) {
			return invalid(FieldProblem{"inputs.credentialRef", "no stored cloud credential has this ID (see GET /api/v1/credentials)"})
		} else if err != nil {
			return err
		}
	}
	if err := prov.Validate(c.UserContext(), sdk.ValidateRequest{Inputs: r.Inputs, Credentials: creds}); err != nil {
		return pluginProblem(r.Provider, err)
	}
	row := &store.Cluster{Name: r.Name, Provider: info.Cloud, Region: inputs["region"], Source: flow.source,
		Status: "Pending", Message: "waiting for the controller to start provisioning"}
	if credRef != "" {
		row.CredentialID = &credRef
	}
	spec := hostclusters.Spec{Mode: flow.mode, Provider: info.Cloud, Region: inputs["region"],
		Plugin: r.Provider, Topology: r.Topology, Inputs: inputs, CredentialRef: credRef}
	r.apply(&spec)
	return s.createAndHandOver(c, row, spec)
}

// provider finds a plugin and its Info, as a 400 on the provider field when
// there is no such plugin.
func (s *server) provider(c *fiber.Ctx, name string) (sdk.Provider, sdk.Info, error) {
	if name == "" {
		return nil, sdk.Info{}, invalid(FieldProblem{"provider", "is required: GET /api/v1/providers lists the provider plugins"})
	}
	p, err := s.providers.Provider(name)
	if err != nil {
		// The plugin host's error names the plugin directory, which is
		// the server's business; the log keeps it.
		s.log.Info("unknown provider requested", "request_id", requestID(c), "reason", err)
		return nil, sdk.Info{}, invalid(FieldProblem{"provider", fmt.Sprintf("no provider plugin named %q: GET /api/v1/providers lists them", name)})
	}
	info, err := p.GetInfo(c.UserContext())
	if err != nil {
		return nil, sdk.Info{}, pluginProblem(name, err)
	}
	return p, info, nil
}

// pluginProblem maps a provider's typed error to an HTTP problem.
func pluginProblem(name string, err error) error {
	switch sdk.KindOf(err) {
	case sdk.KindInvalidInput:
		var fields []FieldProblem
		for _, f := range sdk.FieldErrors(err) {
			fields = append(fields, FieldProblem{Field: f.Field, Message: f.Message})
		}
		return invalid(fields...)
	case sdk.KindFailedPrecondition:
		return problem(http.StatusUnprocessableEntity, "provider %s: %v", name, err)
	case sdk.KindUnavailable, sdk.KindDeadlineExceeded:
		return problem(http.StatusServiceUnavailable, "provider %s is unavailable: %v; retry", name, err)
	}
	return problem(http.StatusBadGateway, "provider %s failed: %v", name, err)
}
