package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// provisionRequest is POST /clusters/provision. Inputs are the plugin's own
// (region, sizes, kubernetesVersion, credentialRef, ...), checked against
// its schema and its Validate.
type provisionRequest struct {
	Name     string            `json:"name" jsonschema:"required"`
	Provider string            `json:"provider" jsonschema:"required"`
	Topology string            `json:"topology"`
	Inputs   map[string]string `json:"inputs"`
	// Team owns the cluster; "default" when left out. A credential the
	// inputs name must be the same team's.
	Team string `json:"team,omitempty"`
	pipelineRequest
}

// provisionedAs is the source and HostCluster mode of a cluster the plugin
// makes: the product's own for the sources KubeOpera's AWS plugins declare,
// "provisioned" (with the plugin recorded) for any other.
func provisionedAs(info sdk.Info) (store.Source, hostclusters.Mode) {
	switch store.Source(info.ClusterSource) {
	case store.SourceProvisionedVanilla:
		return store.SourceProvisionedVanilla, hostclusters.ProvisionVanilla
	case store.SourceProvisionedEKS:
		return store.SourceProvisionedEKS, hostclusters.ProvisionEKS
	}
	return store.SourceProvisioned, hostclusters.Provision
}

func (r provisionRequest) check() error {
	return collect(append([]*FieldProblem{checkName("name", r.Name)}, r.checks()...)...)
}

func (s *server) provisionCluster(c *fiber.Ctx) error {
	var r provisionRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	if err := s.teamOf(c, &r.Team); err != nil {
		return err
	}
	r.pipelineRequest = s.defaults.fill(r.pipelineRequest, r.Name)
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
	if !info.Has(sdk.CapProvision) {
		return problem(http.StatusUnprocessableEntity, "provider %s does not declare the provision capability", r.Provider)
	}
	source, mode := provisionedAs(info)
	if r.Topology == "" && len(info.Topologies) > 0 {
		r.Topology = info.Topologies[0]
	}
	if err := collect(checkTopology("topology", r.Topology, info.Topologies)); err != nil {
		return err
	}
	inputs := sdk.WithDefaults(info.Schema, r.Inputs)
	credRef, creds, err := s.inputCredential(c, info, inputs, r.Team)
	if err != nil {
		return err
	}
	if err := prov.Validate(c.UserContext(), sdk.ValidateRequest{Inputs: r.Inputs, Credentials: creds}); err != nil {
		return pluginProblem(r.Provider, err)
	}
	region := ""
	if info.RegionInput != "" {
		region = inputs[info.RegionInput]
	}
	row := &store.Cluster{Name: r.Name, Team: r.Team, Provider: info.Cloud, Region: region, Source: source, Plugin: r.Provider}
	if credRef != "" {
		row.CredentialID = &credRef
	}
	plain, secret := splitSecretInputs(info.Schema, inputs)
	spec := hostclusters.Spec{Mode: mode, Provider: info.Cloud, Region: region, Plugin: r.Provider,
		Topology: r.Topology, Inputs: plain, SecretInputs: secret, CredentialRef: credRef}
	r.apply(&spec)
	return s.createAndHandOver(c, row, spec)
}

// splitSecretInputs takes the inputs the schema declares secret out of
// inputs: they are kept in a Secret, never in the HostCluster.
func splitSecretInputs(schema []sdk.InputField, inputs map[string]string) (plain, secret map[string]string) {
	plain, secret = map[string]string{}, map[string]string{}
	isSecret := map[string]bool{}
	for _, f := range schema {
		isSecret[f.Name] = f.Secret
	}
	for k, v := range inputs {
		if isSecret[k] {
			secret[k] = v
		} else {
			plain[k] = v
		}
	}
	return plain, secret
}

// inputCredential resolves the stored credential the provider's
// credential-reference input names, checking that it is of a kind the input
// accepts and that it belongs to team, the cluster's. A provider without
// such an input, or a request that leaves it empty, has none.
func (s *server) inputCredential(c *fiber.Ctx, info sdk.Info, inputs map[string]string, team string) (string, sdk.Credentials, error) {
	field, ok := sdk.CredentialInput(info.Schema)
	if !ok || inputs[field.Name] == "" {
		return "", nil, nil
	}
	ref, path := inputs[field.Name], "inputs."+field.Name
	if err := s.sameTeam(c, ref, team, path); err != nil {
		return "", nil, err
	}
	creds, err := s.resolveCredentials(c, ref)
	if errors.Is(err, sdk.ErrNotFound) {
		return "", nil, invalid(FieldProblem{path, "no stored cloud credential has this ID (see GET /api/v1/credentials)"})
	} else if err != nil {
		return "", nil, err
	}
	if len(field.CredentialKinds) > 0 && !slices.Contains(field.CredentialKinds, creds["kind"]) {
		return "", nil, invalid(FieldProblem{path, fmt.Sprintf("is a %s credential; this provider takes %s",
			creds["kind"], strings.Join(field.CredentialKinds, " or "))})
	}
	return ref, creds, nil
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
