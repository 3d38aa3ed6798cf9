// Package awsprovider is the AWS provider plugins (aws-vanilla and
// aws-eks): their input schema, input and credential validation, and the
// lifecycle, which runs each plugin's Terraform modules through
// sdk/terraform and reads the result from SSM (vanilla) or builds a token
// kubeconfig (EKS).
package awsprovider

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ochestra-tech/kubeopera/internal/awscred"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// Options tell one AWS provider from the other.
type Options struct {
	Name        string
	DisplayName string
	Topology    string
	Version     string
	// ControlPlane adds the controlPlaneCount input (self-managed control
	// planes only).
	ControlPlane bool
	// MinNodes is the smallest nodeCount accepted.
	MinNodes int
	// Versions are the Kubernetes versions offered and the default.
	Versions VersionTable
}

// Limits on counts; beyond them a single request is more likely a typo than
// a plan, and AWS default quotas would refuse it anyway.
const (
	maxControlPlanes = 7
	maxNodes         = 100
)

// Schema returns the inputs of the provider described by o.
func Schema(o Options) []sdk.InputField {
	fields := []sdk.InputField{
		{Name: "region", Type: sdk.String, Required: true,
			Help: "AWS region to create the cluster in, e.g. eu-north-1"},
	}
	if o.ControlPlane {
		fields = append(fields, sdk.InputField{Name: "controlPlaneCount", Type: sdk.Int, Default: "1",
			Help: "number of control-plane instances with stacked etcd: 1, 3, 5 or 7 (odd, for etcd quorum)"})
	}
	fields = append(fields,
		sdk.InputField{Name: "nodeCount", Type: sdk.Int, Default: "2", Min: sdk.Bound(int64(o.MinNodes)), Max: sdk.Bound(maxNodes),
			Help: "number of worker nodes"},
		sdk.InputField{Name: "instanceType", Type: sdk.String, Default: "t3.medium",
			Help: "EC2 instance type of every node, e.g. t3.medium"},
		sdk.InputField{Name: "kubernetesVersion", Type: sdk.String, Default: o.Versions.Default,
			Help: "Kubernetes version: one of " + strings.Join(o.Versions.Minors(), ", ") +
				", or a patch release of one such as " + o.Versions.Default + ".0" + patchHelp(o)},
		sdk.InputField{Name: "credentialRef", Type: sdk.CredentialRef, Required: true,
			CredentialKinds: []string{"access_key", "assume_role"},
			Help:            "ID of a stored AWS cloud credential (Settings > Cloud credentials)"},
	)
	return append(fields, endpointFields(o)...)
}

var (
	regionRE       = regexp.MustCompile(`^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]$`)
	instanceTypeRE = regexp.MustCompile(`^[a-z][a-z0-9-]*\.[0-9]*[a-z0-9]+$`)
)

// Validate checks inputs against the schema and the rules AWS imposes, and
// credentials when the host passed them. It returns every problem at once.
func Validate(o Options, inputs map[string]string, creds sdk.Credentials) []sdk.FieldError {
	schema := Schema(o)
	errs := sdk.CheckInputs(schema, inputs)
	bad := make(map[string]bool, len(errs))
	for _, e := range errs {
		bad[e.Field] = true
	}
	in := sdk.WithDefaults(schema, inputs)
	add := func(field, format string, args ...any) {
		if !bad["inputs."+field] {
			errs = append(errs, sdk.FieldError{Field: "inputs." + field, Message: fmt.Sprintf(format, args...)})
		}
	}
	if r := in["region"]; r != "" && !regionRE.MatchString(r) {
		add("region", "%q is not an AWS region name; use one like eu-north-1 or us-east-2", r)
	} else if p := unsupportedPartition(r); p != "" {
		add("region", "%s is in the %s, which these plugins do not support (their modules, tokens and IAM policy are "+
			"written and tested for the aws and aws-us-gov partitions); use a region such as eu-north-1 or us-gov-west-1", r, p)
	}
	if t := in["instanceType"]; !instanceTypeRE.MatchString(t) {
		add("instanceType", "%q is not an EC2 instance type; use one like t3.medium or m6i.large", t)
	}
	if _, _, err := o.Versions.Resolve(in["kubernetesVersion"]); err != nil {
		add("kubernetesVersion", "%v", err)
	}
	if n, err := strconv.Atoi(in["nodeCount"]); err == nil && (n < o.MinNodes || n > maxNodes) {
		add("nodeCount", "must be between %d and %d, got %d", o.MinNodes, maxNodes, n)
	}
	if o.ControlPlane {
		if n, err := strconv.Atoi(in["controlPlaneCount"]); err == nil {
			switch {
			case n < 1 || n > maxControlPlanes:
				add("controlPlaneCount", "must be 1, 3, 5 or 7, got %d", n)
			case n%2 == 0:
				add("controlPlaneCount", "must be odd so etcd keeps quorum when one member fails: use %d or %d, not %d", n-1, n+1, n)
			}
		}
	}
	errs = append(errs, validateEndpoint(o, in, bad)...)
	return append(errs, validateCredentials(creds)...)
}

// unsupportedPartitions are the AWS partitions whose regions are refused,
// by region name prefix; the modules' ARNs come from aws_partition, but
// nothing else (endpoints, EKS tokens, image parameters, the policy in
// docs/aws.md) was ever checked against them.
var unsupportedPartitions = []struct{ prefix, name string }{
	{"cn-", "AWS China partition (aws-cn)"},
	{"us-isob-", "AWS Secret Region partition (aws-iso-b)"},
	{"us-iso-", "AWS Top Secret partition (aws-iso)"},
	{"eu-isoe-", "AWS European isolated partition (aws-iso-e)"},
	{"us-isof-", "AWS isolated partition aws-iso-f"},
}

// unsupportedPartition names the partition of region when it is one the
// plugins refuse, else "".
func unsupportedPartition(region string) string {
	for _, p := range unsupportedPartitions {
		if strings.HasPrefix(region, p.prefix) {
			return p.name
		}
	}
	return ""
}

// validateCredentials checks the shape of an AWS credential; only AWS can say
// whether it works. No value is ever echoed back: these are secrets.
func validateCredentials(c sdk.Credentials) []sdk.FieldError {
	if len(c) == 0 {
		return nil
	}
	var errs []sdk.FieldError
	add := func(field, msg string) {
		errs = append(errs, sdk.FieldError{Field: "credentials." + field, Message: msg})
	}
	switch c["kind"] {
	case "access_key":
		if !awscred.AccessKeyID(c["accessKeyId"]) {
			add("accessKeyId", awscred.BadAccessKeyID)
		}
		if !awscred.SecretAccessKey(c["secretAccessKey"]) {
			add("secretAccessKey", awscred.BadSecretAccessKey)
		}
	case "assume_role":
		if !awscred.RoleARN(c["roleArn"]) {
			add("roleArn", awscred.BadRoleARN)
		}
	default:
		add("kind", "must be access_key or assume_role")
	}
	return errs
}

// patchHelp says what a patch release means for the provider: EKS picks
// the patch of a minor itself.
func patchHelp(o Options) string {
	if o.ControlPlane {
		return " (the nodes install exactly that release)"
	}
	return " (EKS runs its own latest patch of the minor)"
}
