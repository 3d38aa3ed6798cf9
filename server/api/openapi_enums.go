package api

import (
	"fmt"
	"reflect"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/access"
	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/health"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// The value sets fixed at build time each come from one Go list, so the
// document's enums (and the dashboard's and the CLI's types generated from
// it) cannot disagree with the server. Credential kinds are not among
// them: the loaded plugins declare those, listed by GET /providers.

// enumTypes are the named types whose every value is in a list.
var enumTypes = map[reflect.Type][]any{
	reflect.TypeFor[Role]():             enumOf(access.GlobalRoles),
	reflect.TypeFor[store.Source]():     sourceEnum(),
	reflect.TypeFor[sdk.Availability](): enumOf(sdk.Availabilities),
	reflect.TypeFor[v1alpha1.Phase]():   phaseEnum(),
	reflect.TypeFor[sdk.FieldType]():    enumOf(sdk.FieldTypes),
	reflect.TypeFor[plugin.Reason]():    enumOf(plugin.Reasons),
}

// enumFields are plain string fields of response types whose values come
// from a list, by the type and the field's JSON name.
var enumFields = map[reflect.Type]map[string][]any{
	reflect.TypeFor[clusterView]():       {"status": phaseEnum(), "badge": enumOf(ClusterBadges), "role": enumOf(access.ObjectRoles)},
	reflect.TypeFor[clusterDetail]():     {"status": phaseEnum(), "badge": enumOf(ClusterBadges), "role": enumOf(access.ObjectRoles)},
	reflect.TypeFor[lifecycleResponse](): {"status": phaseEnum()},
	reflect.TypeFor[health.Score]():      {"badge": enumOf(health.Badges)},
	reflect.TypeFor[federation.Row]():    {"badge": enumOf(health.Badges), "status": phaseEnum(), "statusBadge": enumOf(ClusterBadges)},
	reflect.TypeFor[Problem]():           {"code": enumOf(ProblemCodes)},
	reflect.TypeFor[teamView]():          {"role": enumOf(access.TeamRoles)},
	reflect.TypeFor[store.MemberView]():  {"role": enumOf(access.TeamRoles)},
	reflect.TypeFor[memberRequest]():     {"role": enumOf(access.TeamRoles)},
	reflect.TypeFor[providerView]():      {"capabilities": enumOf(sdk.Capabilities), "health": enumOf(plugin.Healths)},
}

func phaseEnum() []any  { return enumOf(v1alpha1.Phases) }
func sourceEnum() []any { return enumOf(store.Sources) }

func enumOf[T ~string](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// baseMapper writes time.Time as a date-time string and a named enum type
// as a string with its enum.
func baseMapper(t reflect.Type) *jsonschema.Schema {
	if t == reflect.TypeFor[time.Time]() {
		return &jsonschema.Schema{Type: "string", Format: "date-time"}
	}
	if values, ok := enumTypes[t]; ok {
		return &jsonschema.Schema{Type: "string", Enum: values}
	}
	return nil
}

// enumMapper is r's Mapper: baseMapper, and for a type of enumFields its
// schema as r reflects it with the enums added to those fields.
func enumMapper(r jsonschema.Reflector) func(reflect.Type) *jsonschema.Schema {
	plain := r
	plain.Mapper = baseMapper
	return func(t reflect.Type) *jsonschema.Schema {
		if s := baseMapper(t); s != nil {
			return s
		}
		fields, ok := enumFields[t]
		if !ok {
			return nil
		}
		s := plain.ReflectFromType(t)
		s.Version, s.ID, s.Definitions = "", "", nil
		for name, values := range fields {
			p, ok := s.Properties.Get(name)
			if !ok {
				panic(fmt.Sprintf("enumFields: %s has no field %q", t, name)) // caught by every test of the package
			}
			if p.Type == "array" && p.Items != nil {
				p.Items.Enum = values // every item is one of them
			} else {
				p.Enum = values
			}
		}
		return s
	}
}
