package plugin_test

import (
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// Every product plugin passes the same conformance kit third-party authors
// use; the AWS ones with their lifecycle running (aws_test.go).
func TestProductPluginsPassConformance(t *testing.T) {
	cases := map[string]map[string]string{
		"gcp-stub":   nil,
		"azure-stub": nil,
	}
	for name, inputs := range cases {
		t.Run(name, func(t *testing.T) {
			sdktest.Run(t, sdktest.Config{Binary: built.plugins[name], ValidInputs: inputs})
		})
	}
}
