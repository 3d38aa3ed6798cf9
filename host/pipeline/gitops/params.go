package gitops

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"path"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Params say what tree to generate for one cluster. Zero values of the
// optional fields take the defaults named on each field.
type Params struct {
	// ClusterID is the KubeOpera cluster ID (clusters.id); a DNS label. It
	// labels every object in the tree as kubeopera.io/cluster-id.
	ClusterID string
	// ClusterName is shown to people (README, an annotation); default ClusterID.
	ClusterName string
	// Domain publishes KubeOpera: the dashboard at Domain itself and the
	// API at api.<Domain> (see APIHost and DashboardHost).
	Domain string
	// Path is the gitOpsPath in the repository, e.g. "clusters/prod-eu";
	// "" is the repository root. Every file of the tree is under it.
	Path string
	// ImageRegistry holds KubeOpera's images; default DefaultImageRegistry.
	ImageRegistry string
	// Version is the tag of KubeOpera's images, e.g. "v0.4.0". Required.
	Version string
	// PullSecret names an image pull Secret in kubeopera-system for
	// KubeOpera's pods; "" means none.
	PullSecret string
	// AdminEmail is the ACME account email of the tree's ClusterIssuer;
	// optional (admin@<Domain> when empty).
	AdminEmail string
	// Provider is the cloud the cluster runs on: "aws", "gcp", "azure", or
	// "" / "other" for anything else. It picks the StorageClass (see
	// Storage) and cloud-specific ingress Service annotations.
	Provider string
	// ClusterIssuer is the cert-manager ClusterIssuer the Gateway (or the
	// Ingresses) name in their cert-manager.io/cluster-issuer annotation; default
	// DefaultClusterIssuer. The tree creates it in its tls layer.
	ClusterIssuer string
	// FluxNamespace is where Flux runs and where the tree's HelmRepository
	// and HelmRelease objects live; default "flux-system".
	FluxNamespace string
	// Database sizes KubeOpera's PostgreSQL.
	Database Database
	// DefaultStorageClass marks the tree's StorageClass as the cluster's
	// default, for clusters that have none: those KubeOpera provisions on
	// AWS (aws-vanilla makes no StorageClass; EKS from 1.30 no longer marks
	// its in-tree gp2 class default). A connected cluster keeps its own.
	DefaultStorageClass bool
	// IngressNginx publishes KubeOpera through ingress-nginx and Ingresses
	// instead of the tree's Gateway (Envoy Gateway, HTTPRoutes), for a
	// cluster that asks for the retired controller.
	IngressNginx bool
	// GatewayAPIRepoURL is the git repository the Gateway API CRDs are
	// fetched from, at tag GatewayAPIVersion; default
	// DefaultGatewayAPIRepoURL. A mirror holds upstream's tag (`kubeopera
	// dev` serves one on loopback, for clusters that cannot reach GitHub).
	GatewayAPIRepoURL string
}

// Database sizes the PostgreSQL cluster that CloudNativePG runs for KubeOpera.
type Database struct {
	// Instances is the number of PostgreSQL instances (1 to 5); default 1.
	Instances int32
	// Size is each instance's volume, a Kubernetes quantity; default "10Gi".
	Size string
	// StorageClass overrides the volumes' StorageClass; default the tree's
	// own for the Provider (StorageClassName), else the cluster's default.
	StorageClass string
	// PostgresVersion is the PostgreSQL major version; default "17".
	PostgresVersion string
}

// Defaults of the optional Params.
const (
	DefaultImageRegistry   = "ghcr.io/ochestra-tech"
	DefaultClusterIssuer   = "letsencrypt"
	DefaultFluxNamespace   = "flux-system"
	DefaultDatabaseSize    = "10Gi"
	DefaultPostgresVersion = "17"
)

// The providers Params.Provider accepts.
const (
	ProviderAWS   = "aws"
	ProviderGCP   = "gcp"
	ProviderAzure = "azure"
	ProviderOther = "other"
)

var (
	// registryPattern is host[:port][/path...] in lower case, as image
	// references spell it.
	registryPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(/[a-z0-9]([a-z0-9._-]*[a-z0-9])?)*$`)
	// tagPattern is the OCI distribution spec's tag grammar.
	tagPattern    = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	pgVersionExpr = regexp.MustCompile(`^[0-9]{2}$`)
)

// withDefaults returns p with every empty optional field set.
func (p Params) withDefaults() Params {
	if p.ClusterName == "" {
		p.ClusterName = p.ClusterID
	}
	if p.ImageRegistry == "" {
		p.ImageRegistry = DefaultImageRegistry
	}
	if p.ClusterIssuer == "" {
		p.ClusterIssuer = DefaultClusterIssuer
	}
	if p.FluxNamespace == "" {
		p.FluxNamespace = DefaultFluxNamespace
	}
	if p.Provider == "" {
		p.Provider = ProviderOther
	}
	if p.GatewayAPIRepoURL == "" {
		p.GatewayAPIRepoURL = DefaultGatewayAPIRepoURL
	}
	if p.Database.Instances == 0 {
		p.Database.Instances = 1
	}
	if p.Database.Size == "" {
		p.Database.Size = DefaultDatabaseSize
	}
	if p.Database.PostgresVersion == "" {
		p.Database.PostgresVersion = DefaultPostgresVersion
	}
	return p
}

// Validate reports every problem with p at once; each error names the field,
// the value and what to do about it.
func (p Params) Validate() error {
	p = p.withDefaults()
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(validateClusterID(p.ClusterID))
	add(validateDomain(p.Domain))
	add(validatePath(p.Path))
	add(validateImage(p.ImageRegistry, p.Version))
	add(validateOptionalName("pull secret", p.PullSecret))
	add(validateOptionalName("cluster issuer", p.ClusterIssuer))
	add(validateOptionalName("flux namespace", p.FluxNamespace))
	add(validateOptionalName("database storage class", p.Database.StorageClass))
	add(validateEmail(p.AdminEmail))
	add(validateProvider(p.Provider))
	add(validateDatabase(p.Database))
	add(validateRepoURL("Gateway API repository", p.GatewayAPIRepoURL))
	return errors.Join(errs...)
}

func validateClusterID(id string) error {
	if id == "" {
		return errors.New("cluster ID: empty; set the KubeOpera cluster ID, a DNS label such as prod-eu-1")
	}
	if msgs := validation.IsDNS1123Label(id); len(msgs) > 0 {
		return fmt.Errorf("cluster ID %q: not a DNS label (%s); use lower-case letters, digits and '-', e.g. prod-eu-1",
			id, strings.Join(msgs, "; "))
	}
	return nil
}

func validateDomain(domain string) error {
	if domain == "" {
		return errors.New("domain: empty; set the DNS name KubeOpera is published under, e.g. ops.example.com")
	}
	// IsFullyQualifiedDomainName accepts a trailing dot; a Host header and
	// an Ingress host do not carry one.
	var reason string
	if strings.HasSuffix(domain, ".") {
		reason = "ends with a dot"
	}
	if errs := validation.IsFullyQualifiedDomainName(field.NewPath("domain"), domain); len(errs) > 0 {
		details := make([]string, len(errs))
		for i, e := range errs {
			details[i] = e.Detail
		}
		reason = strings.Join(details, "; ")
	}
	if reason != "" {
		return fmt.Errorf("domain %q: not a DNS name (%s); give lower-case labels joined by dots with no scheme, port, "+
			"path or trailing dot, e.g. ops.example.com", domain, reason)
	}
	if api := apiHost(domain); len(api) > validation.DNS1123SubdomainMaxLength {
		return fmt.Errorf("domain %q: the API host %s is longer than %d characters; use a shorter domain",
			domain, api, validation.DNS1123SubdomainMaxLength)
	}
	return nil
}

func validatePath(p string) error {
	switch {
	case p == "":
		return nil
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q: starts with '/'; give it relative to the repository root, e.g. %q",
			p, strings.TrimLeft(p, "/"))
	case strings.Contains(p, `\`):
		return fmt.Errorf("path %q: contains '\\'; separate directories with '/', e.g. clusters/prod", p)
	case p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.."):
		return fmt.Errorf("path %q: leaves or names the repository root through '.' or '..'; "+
			"give a directory inside the repository, e.g. clusters/prod, or \"\" for the root", p)
	case path.Clean(p) != p:
		return fmt.Errorf("path %q: not clean; write it as %q (no './', '//' or trailing '/')", p, path.Clean(p))
	}
	return nil
}

func validateImage(registry, version string) error {
	var errs []error
	if !registryPattern.MatchString(registry) {
		errs = append(errs, fmt.Errorf("image registry %q: not a registry/repository prefix; give lower-case host[:port][/path] "+
			"with no scheme or trailing '/', e.g. %s", registry, DefaultImageRegistry))
	}
	switch {
	case version == "":
		errs = append(errs, errors.New("version: empty; set the KubeOpera image tag, e.g. v0.4.0"))
	case !tagPattern.MatchString(version):
		errs = append(errs, fmt.Errorf("version %q: not an image tag; use up to 128 letters, digits, '_', '.' and '-', "+
			"not starting with '.' or '-', e.g. v0.4.0", version))
	}
	return errors.Join(errs...)
}

// validateOptionalName checks the name of an object the tree refers to.
func validateOptionalName(what, name string) error {
	if name == "" {
		return nil
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return fmt.Errorf("%s %q: not a Kubernetes object name (%s); use lower-case letters, digits, '-' and '.'",
			what, name, strings.Join(msgs, "; "))
	}
	return nil
}

func validateEmail(email string) error {
	if email == "" {
		return nil
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email {
		return fmt.Errorf("admin email %q: not a plain email address; give just the address, e.g. admin@example.com", email)
	}
	return nil
}

func validateProvider(provider string) error {
	switch provider {
	case ProviderAWS, ProviderGCP, ProviderAzure, ProviderOther:
	default:
		return fmt.Errorf("provider %q: unknown; use %q, %q, %q, or %q (or \"\") for any other cluster",
			provider, ProviderAWS, ProviderGCP, ProviderAzure, ProviderOther)
	}
	return nil
}

func validateDatabase(d Database) error {
	var errs []error
	if d.Instances < 1 || d.Instances > 5 {
		errs = append(errs, fmt.Errorf("database instances %d: out of range; use 1 to 5", d.Instances))
	}
	if q, err := resource.ParseQuantity(d.Size); err != nil || q.Sign() <= 0 {
		errs = append(errs, fmt.Errorf("database size %q: not a positive Kubernetes quantity; use e.g. 10Gi", d.Size))
	}
	if !pgVersionExpr.MatchString(d.PostgresVersion) {
		errs = append(errs, fmt.Errorf("database PostgreSQL version %q: not a major version; use e.g. %s",
			d.PostgresVersion, DefaultPostgresVersion))
	}
	return errors.Join(errs...)
}

// validateRepoURL accepts the http(s) git URLs a Flux GitRepository without
// credentials fetches.
func validateRepoURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%s %q: not an http(s) URL of a git repository, e.g. %s", what, raw, DefaultGatewayAPIRepoURL)
	}
	return nil
}
