package addonschema

import (
	"errors"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
)

// The stored copy of the EBS CSI add-on's published schema: what EKS
// accepts and refuses under it, each refusal naming the value.
func TestValidateAgainstThePublishedEBSAddonSchema(t *testing.T) {
	schema := fakeaws.AddonSchema("aws-ebs-csi-driver")
	for _, tc := range []struct {
		name, values string
		want         string // "" for accepted
	}{
		{"extra volume tags are accepted", `{"controller":{"extraVolumeTags":{"kubeopera.io/cluster":"kubeopera-abc"}}}`, ""},
		{"node settings are accepted", `{"node":{"tolerateAllTaints":true,"volumeAttachLimit":25}}`, ""},
		{"the chart's k8sTagClusterId is refused, naming the keys allowed",
			`{"controller":{"k8sTagClusterId":"kubeopera-abc"}}`,
			"controller.k8sTagClusterId: is not a key the add-on accepts; the add-on's schema allows only: extraVolumeTags"},
		{"an unknown top-level section is refused", `{"sidecars":{}}`, "sidecars: is not a key the add-on accepts; the add-on's schema allows only: controller, node"},
		{"a tag value the add-on's pattern refuses", `{"controller":{"extraVolumeTags":{"team":"a,b"}}}`, `controller.extraVolumeTags.team: "a,b" does not match`},
		{"a tag key over 128 characters", `{"controller":{"extraVolumeTags":{"` + strings.Repeat("k", 129) + `":"v"}}}`, "(the key): "},
		{"a boolean given as a string", `{"node":{"tolerateAllTaints":"yes"}}`, "node.tolerateAllTaints: is string, the add-on wants boolean"},
		{"a limit below the minimum", `{"node":{"volumeAttachLimit":0}}`, "node.volumeAttachLimit: 0 is below the minimum 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(schema, []byte(tc.values))
			var e *Error
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate(%s) = %v, want accepted", tc.values, err)
			case tc.want != "" && (!errors.As(err, &e) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate(%s) = %v, want an *Error with %q", tc.values, err, tc.want)
			}
		})
	}
}

func TestValidateSaysWhenTheSchemaIsNotJSON(t *testing.T) {
	if err := Validate([]byte("{"), []byte("{}")); err == nil || !strings.Contains(err.Error(), "configuration schema") {
		t.Errorf("Validate with a broken schema = %v, want an error naming the schema", err)
	}
}
