package awsapi

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go"
)

// InstanceType is what EC2 says of an instance type.
type InstanceType struct {
	Name      string
	VCPUs     int
	MemoryMiB int
	// Architectures as EC2 names them: x86_64, arm64, i386.
	Architectures []string
}

// ErrNoSuchInstanceType says EC2 does not offer the type in the region.
var ErrNoSuchInstanceType = errors.New("no such instance type in this region")

// DescribeInstanceType asks EC2 (DescribeInstanceTypes) for one type's
// vCPUs, memory and architectures. An unknown type is
// ErrNoSuchInstanceType; a refused credential sdk.InvalidInput; an
// unreachable EC2 sdk.Unavailable.
func DescribeInstanceType(ctx context.Context, cfg aws.Config, name string) (InstanceType, error) {
	doing := "describe instance type " + name + " with ec2:DescribeInstanceTypes"
	form := url.Values{"Action": {"DescribeInstanceTypes"}, "Version": {"2016-11-15"}, "InstanceType.1": {name}}
	body := []byte(form.Encode())
	req, err := newRequest(ctx, http.MethodPost, endpoint(cfg, "ec2")+"/", body)
	if err != nil {
		return InstanceType{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	data, err := send(ctx, cfg, "ec2", req, body, queryError)
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "InvalidInstanceType" {
		return InstanceType{}, fmt.Errorf("%s: %w", name, ErrNoSuchInstanceType)
	}
	if err != nil {
		return InstanceType{}, classifyRaw(err, doing)
	}
	var out struct {
		Items []struct {
			Name  string   `xml:"instanceType"`
			VCPUs int      `xml:"vCpuInfo>defaultVCpus"`
			MiB   int      `xml:"memoryInfo>sizeInMiB"`
			Archs []string `xml:"processorInfo>supportedArchitectures>item"`
		} `xml:"instanceTypeSet>item"`
	}
	if err := xml.Unmarshal(data, &out); err != nil {
		return InstanceType{}, fmt.Errorf("%s: unreadable answer: %w", doing, err)
	}
	if len(out.Items) == 0 {
		return InstanceType{}, fmt.Errorf("%s: %w", name, ErrNoSuchInstanceType)
	}
	it := out.Items[0]
	return InstanceType{Name: it.Name, VCPUs: it.VCPUs, MemoryMiB: it.MiB, Architectures: it.Archs}, nil
}

// EKS version statuses (DescribeClusterVersions' versionStatus).
const (
	StandardSupport = "STANDARD_SUPPORT"
	ExtendedSupport = "EXTENDED_SUPPORT"
	Unsupported     = "UNSUPPORTED"
)

// ClusterVersionStatus asks EKS (DescribeClusterVersions) for a minor
// version's status in cfg's region: StandardSupport, ExtendedSupport,
// Unsupported, or "" when EKS does not offer it at all. A credential
// without eks:DescribeClusterVersions gets a *DeniedError.
func ClusterVersionStatus(ctx context.Context, cfg aws.Config, minor string) (string, error) {
	doing := "look up Kubernetes " + minor + " with eks:DescribeClusterVersions"
	q := url.Values{"clusterVersions": {minor}, "includeAll": {"true"}}
	req, err := newRequest(ctx, http.MethodGet, endpoint(cfg, "eks")+"/cluster-versions?"+q.Encode(), nil)
	if err != nil {
		return "", err
	}
	data, err := send(ctx, cfg, "eks", req, nil, jsonError)
	if d := asDenied(err, "eks:DescribeClusterVersions"); d != nil {
		return "", d
	}
	if err != nil {
		return "", classifyRaw(err, doing)
	}
	var out struct {
		ClusterVersions []struct {
			ClusterVersion string `json:"clusterVersion"`
			VersionStatus  string `json:"versionStatus"`
		} `json:"clusterVersions"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return "", fmt.Errorf("%s: unreadable answer: %w", doing, err)
	}
	for _, v := range out.ClusterVersions {
		if v.ClusterVersion == minor {
			return v.VersionStatus, nil
		}
	}
	return "", nil
}
