package api

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// typedSchemas are the OpenAPI schemas generated from the Go types the
// handlers encode, so a field added to a response is documented with it.
// They replace the hand-written entries of the same name in schemas.
var typedSchemas = map[string]any{
	"ProviderList":   providerList{},
	"Provider":       providerView{},
	"InputField":     fieldView{},
	"CredentialKind": credentialKindView{},
	"SkippedPlugin":  plugin.Skipped{},
	"Credential":     store.Credential{},
	"CredentialList": struct {
		Items []store.Credential `json:"items"`
	}{},
	"CredentialRequest": credentialRequestDoc{},
}

// credentialRequestDoc documents credentialRequest, whose decoding also
// accepts the fields at the top level (the form from before plugins
// declared their credential kinds).
type credentialRequestDoc struct {
	Label  string            `json:"label"`
	Kind   string            `json:"kind"`
	Fields map[string]string `json:"fields,omitempty" jsonschema:"description=the fields the kind declares (see GET /api/v1/providers)"`
}

// generatedSchemas reflects typedSchemas into JSON Schema objects that
// OpenAPI 3.0 accepts: nested types inline, no $schema or $id.
func generatedSchemas() map[string]any {
	r := &jsonschema.Reflector{DoNotReference: true, Anonymous: true,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == reflect.TypeOf(time.Time{}) {
				return &jsonschema.Schema{Type: "string", Format: "date-time"}
			}
			return nil
		}}
	out := make(map[string]any, len(typedSchemas))
	for name, v := range typedSchemas {
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
		out[name] = m
	}
	return out
}
