package hostenv

import (
	"slices"
	"testing"
)

func TestPluginEnvPassesTerraformSettingsByExactName(t *testing.T) {
	host := []string{
		"KUBEOPERA_TERRAFORM_EXECUTOR=job", "KUBEOPERA_TERRAFORM_DIR=/data/tf", "KUBEOPERA_TERRAFORM_IMAGE=hashicorp/terraform:1.11",
		"KUBEOPERA_TERRAFORM_MODULE_DIR=/modules",
		"KUBEOPERA_TERRAFORM_BACKEND_TOKEN=secret-backend-token", "KUBEOPERA_TERRAFORM_=empty-suffix",
		"KUBEOPERA_ENCRYPTION_KEY=secret-key", "PATH=/usr/bin", "AWS_ENDPOINT_URL_STS=http://127.0.0.1:9000",
		"KUBEOPERA_PLUGIN_ENV_AWS_EKS_KUBEOPERA_TERRAFORM_EXTRA=for-eks",
	}
	got := PluginEnv("aws-eks", host, nil)
	want := []string{
		"AWS_ENDPOINT_URL_STS=http://127.0.0.1:9000", "KUBEOPERA_TERRAFORM_DIR=/data/tf", "KUBEOPERA_TERRAFORM_EXECUTOR=job",
		"KUBEOPERA_TERRAFORM_EXTRA=for-eks", "KUBEOPERA_TERRAFORM_IMAGE=hashicorp/terraform:1.11",
		"KUBEOPERA_TERRAFORM_MODULE_DIR=/modules", "PATH=/usr/bin",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plugin env\n got %q\nwant %q", got, want)
	}
	// The operator can still pass another by name.
	if got := PluginEnv("aws-eks", host, []string{"KUBEOPERA_TERRAFORM_BACKEND_TOKEN"}); !slices.Contains(got, "KUBEOPERA_TERRAFORM_BACKEND_TOKEN=secret-backend-token") {
		t.Errorf("a variable passed by name did not reach the plugin: %q", got)
	}
}
