package plugin_test

import (
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// Every product plugin passes the same conformance kit third-party authors use.
func TestProductPluginsPassConformance(t *testing.T) {
	awsInputs := map[string]string{"region": "eu-north-1", "credentialRef": "cred-0001"}
	cases := map[string]map[string]string{
		"aws-vanilla": awsInputs,
		"aws-eks":     awsInputs,
		"gcp-stub":    nil,
		"azure-stub":  nil,
	}
	for name, inputs := range cases {
		t.Run(name, func(t *testing.T) {
			sdktest.Run(t, sdktest.Config{Binary: built.plugins[name], ValidInputs: inputs})
		})
	}
}
