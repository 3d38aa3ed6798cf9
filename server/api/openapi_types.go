package api

import (
	"encoding/json"

	"github.com/invopop/jsonschema"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/health"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// componentTypes are the Go types the handlers encode and decode, by the
// schema name the route table uses: every component schema is generated
// from one, so a field added to a response is documented with it. Types
// that are only nested in others (Node, Finding, ...) are listed too, so
// the dashboard can name them.
var componentTypes = map[string]any{
	"Health":       healthStatus{},
	"Problem":      Problem{},
	"FieldProblem": FieldProblem{},

	"ClusterList":       clusterList{},
	"Cluster":           clusterView{},
	"ClusterDetail":     clusterDetail{},
	"ClusterCondition":  hostclusters.Condition{},
	"ClusterEvent":      hostclusters.Event{},
	"Node":              inspect.NodeInfo{},
	"LifecycleResponse": lifecycleResponse{},
	"HealthScore":       health.Score{},
	"Finding":           health.Finding{},
	"Overview":          federation.Overview{},
	"OverviewSummary":   federation.Summary{},
	"OverviewRow":       federation.Row{},

	"TeardownRequest":      teardownRequest{},
	"UpdateClusterRequest": updateRequest{},
	"ConnectRequest":       connectRequest{},
	"ProvisionRequest":     provisionRequest{},
	"RegisterSelfRequest":  registerSelfRequest{},

	"ProviderList":      providerList{},
	"Provider":          providerView{},
	"InputField":        fieldView{},
	"CredentialKind":    credentialKindView{},
	"SkippedPlugin":     plugin.Skipped{},
	"EstimateRequest":   estimateRequest{},
	"Estimate":          estimateView{},
	"CostLine":          costLineView{},
	"CredentialList":    credentialList{},
	"Credential":        store.Credential{},
	"CredentialRequest": credentialRequestDoc{},
	"CredentialUpdate":  credentialUpdateDoc{},

	"SetupStatus":           setupStatus{},
	"SetupAdminRequest":     setupAdminRequest{},
	"SetupAdmin":            setupAdminResponse{},
	"SignInRequest":         signInRequest{},
	"Session":               sessionResponse{},
	"SignInMethods":         signInMethods{},
	"SSOMethod":             ssoMethod{},
	"SessionUser":           sessionUser{},
	"TokenList":             tokenList{},
	"TokenCreateRequest":    tokenCreateRequest{},
	"TokenExchangeRequest":  tokenExchangeRequest{},
	"CLITokenRequest":       cliTokenRequest{},
	"IssuedToken":           issuedToken{},
	"ClusterKubeconfig":     clusterKubeconfig{},
	"Token":                 tokenView{},
	"AuditPage":             auditPage{},
	"User":                  userView{},
	"UserList":              userList{},
	"UserCreateRequest":     userCreateRequest{},
	"CreatedUser":           createdUser{},
	"AccessEnded":           accessEnded{},
	"PasswordChangeRequest": passwordChangeRequest{},
	"AuditEvent":            store.AuditEvent{},
	"TeamList":              teamList{},
	"TeamSummary":           teamView{},
	"Team":                  store.Team{},
	"TeamRequest":           teamRequest{},
	"MemberList":            memberList{},
	"Member":                store.MemberView{},
	"MemberRequest":         memberRequest{},
}

// credentialRequestDoc documents credentialRequest, whose decoding also
// accepts the fields at the top level (the form from before plugins
// declared their credential kinds); its own UnmarshalJSON hides that from
// reflection.
type credentialRequestDoc struct {
	Label  string            `json:"label" jsonschema:"required"`
	Team   string            `json:"team,omitempty" jsonschema:"description=the team that owns the credential (default: default); you need the admin role there"`
	Kind   string            `json:"kind" jsonschema:"required"`
	Fields map[string]string `json:"fields,omitempty" jsonschema:"description=the fields the kind declares (see GET /api/v1/providers)"`
}

// credentialUpdateDoc documents PATCH /credentials/{id}: every field may
// be left out, keeping what is stored; fields are merged into the stored
// ones.
type credentialUpdateDoc struct {
	Label  string            `json:"label,omitempty" jsonschema:"description=a new label"`
	Kind   string            `json:"kind,omitempty" jsonschema:"description=the stored kind; a credential cannot change kind"`
	Fields map[string]string `json:"fields,omitempty" jsonschema:"description=the fields to change; the others keep their stored values"`
}

// legacyFields is how both credential bodies document the fields the
// server also accepts at the top level.
func legacyFields(s *jsonschema.Schema) {
	// Untyped: "fields" is an object, and a generated client's type for a
	// string map would refuse it.
	s.AdditionalProperties = &jsonschema.Schema{
		Description: "a field of the kind, as a string, given at the top level instead of in fields (the form from before plugins declared credential kinds)"}
}

// JSONSchemaExtend documents the top-level fields.
func (credentialRequestDoc) JSONSchemaExtend(s *jsonschema.Schema) { legacyFields(s) }

// JSONSchemaExtend documents the top-level fields.
func (credentialUpdateDoc) JSONSchemaExtend(s *jsonschema.Schema) { legacyFields(s) }

// generatedSchemas reflects componentTypes into JSON Schema objects that
// OpenAPI 3.0 accepts: nested types inline, no $schema or $id.
//
// What is required differs by direction, each from the truth of its side:
// a response field is required unless it is omitempty (encoding/json
// always writes the others); a request field is required only when tagged
// jsonschema:"required", which marks what the handler's validation refuses
// to go without (decoding itself requires nothing). A schema is a request
// when a route names it as one.
func generatedSchemas() map[string]any {
	requests := map[string]bool{}
	for _, r := range routes {
		name, _ := requestSchema(r)
		requests[name] = true
	}
	response := &jsonschema.Reflector{DoNotReference: true, Anonymous: true}
	request := &jsonschema.Reflector{DoNotReference: true, Anonymous: true, RequiredFromJSONSchemaTags: true}
	response.Mapper, request.Mapper = enumMapper(*response), enumMapper(*request)
	out := make(map[string]any, len(componentTypes))
	for name, v := range componentTypes {
		r := response
		if requests[name] {
			r = request
		}
		out[name] = reflectSchema(r, v)
	}
	return referenceComponents(out)
}

// reflectSchema is v's type as an OpenAPI 3.0 schema object.
func reflectSchema(r *jsonschema.Reflector, v any) map[string]any {
	s := r.Reflect(v)
	s.Version, s.ID = "", ""
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // static Go types: cannot fail
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return openAPINullable(m).(map[string]any)
}

// openAPINullable rewrites JSON Schema's way of allowing null, which the
// reflector writes for a jsonschema:"nullable" field (oneOf the type and
// {"type":"null"}), into OpenAPI 3.0's: the type with nullable: true. 3.0
// has no "null" type.
func openAPINullable(v any) any {
	switch val := v.(type) {
	case map[string]any:
		if one, ok := val["oneOf"].([]any); ok && len(one) == 2 && len(val) == 1 {
			if n, ok := one[1].(map[string]any); ok && n["type"] == "null" && len(n) == 1 {
				if s, ok := one[0].(map[string]any); ok {
					s["nullable"] = true
					return openAPINullable(s)
				}
			}
		}
		for k, x := range val {
			val[k] = openAPINullable(x)
		}
	case []any:
		for i, x := range val {
			val[i] = openAPINullable(x)
		}
	}
	return v
}
