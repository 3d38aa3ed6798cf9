package awsapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go"
)

// ErrNoSuchCluster is DescribeCluster's answer for a cluster EKS does not
// have (ResourceNotFoundException).
var ErrNoSuchCluster = errors.New("EKS has no such cluster")

// eksGet sends one signed GET to EKS's REST-JSON API and returns the
// answer; a credential refused action gets a *DeniedError.
func eksGet(ctx context.Context, cfg aws.Config, path string, q url.Values, action, doing string) ([]byte, error) {
	u := endpoint(cfg, "eks") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := newRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	data, err := send(ctx, cfg, "eks", req, nil, jsonError)
	if d := asDenied(err, action); d != nil {
		return nil, d
	}
	if err != nil {
		return nil, classifyRaw(err, doing+" with "+action)
	}
	return data, nil
}

// AddonConfigurationSchema asks EKS (DescribeAddonConfiguration) for the
// JSON schema it validates an add-on version's configuration_values
// against. A credential without eks:DescribeAddonConfiguration gets a
// *DeniedError.
func AddonConfigurationSchema(ctx context.Context, cfg aws.Config, addon, version string) ([]byte, error) {
	const action = "eks:DescribeAddonConfiguration"
	data, err := eksGet(ctx, cfg, "/addons/configuration-schemas", url.Values{"addonName": {addon}, "addonVersion": {version}},
		action, "read the configuration schema of add-on "+addon+" "+version)
	if err != nil {
		return nil, err
	}
	var out struct {
		Schema string `json:"configurationSchema"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, unreadable(action, err)
	}
	return []byte(out.Schema), nil
}

// ClusterVersion asks EKS (DescribeCluster) for a cluster's Kubernetes
// minor as it runs now: EKS upgrades a cluster under upgrade policy
// STANDARD itself at the end of standard support. A cluster EKS does not
// have is ErrNoSuchCluster.
func ClusterVersion(ctx context.Context, cfg aws.Config, name string) (string, error) {
	const action = "eks:DescribeCluster"
	data, err := eksGet(ctx, cfg, "/clusters/"+url.PathEscape(name), nil, action, "read the version of EKS cluster "+name)
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "ResourceNotFoundException" {
		return "", ErrNoSuchCluster
	}
	if err != nil {
		return "", err
	}
	var out struct {
		Cluster struct {
			Version string `json:"version"`
		} `json:"cluster"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return "", unreadable(action, err)
	}
	return out.Cluster.Version, nil
}
