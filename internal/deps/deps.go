//go:build kubeopera_deps

// Package deps pins the modules the pipeline and AWS providers are being
// built on, so parallel work shares one go.mod. Removed once they are used.
package deps

import (
	_ "github.com/aws/aws-sdk-go-v2/aws"
	_ "github.com/aws/aws-sdk-go-v2/config"
	_ "github.com/aws/aws-sdk-go-v2/credentials"
	_ "github.com/aws/aws-sdk-go-v2/service/ssm"
	_ "github.com/aws/aws-sdk-go-v2/service/sts"
	_ "github.com/fluxcd/kustomize-controller/api/v1"
	_ "github.com/fluxcd/source-controller/api/v1"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/hashicorp/hcl/v2/hclparse"
	_ "github.com/hashicorp/hcl/v2/hclwrite"
	_ "github.com/hashicorp/terraform-exec/tfexec"
	_ "helm.sh/helm/v3/pkg/action"
	_ "helm.sh/helm/v3/pkg/chart/loader"
	_ "helm.sh/helm/v3/pkg/repo"
	_ "sigs.k8s.io/aws-iam-authenticator/pkg/token"
)
