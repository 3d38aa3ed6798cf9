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
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/aws/smithy-go"
)

// The checks a provider makes before it creates anything (its preflight):
// where EC2 offers an instance type, which add-on versions EKS has, and
// the account's vCPU quota.

// DeniedError says the credential may not make a call: AWS answered with
// its access-denied error for Action.
type DeniedError struct {
	// Action is the IAM action, e.g. servicequotas:GetServiceQuota.
	Action string
	// Code is AWS's error code, e.g. AccessDeniedException.
	Code string
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("the credential may not call %s (AWS answered %s); add it to the credential's IAM policy (docs/aws.md)", e.Action, e.Code)
}

// asDenied returns a *DeniedError for action when err is AWS refusing the
// call for lack of permission, else nil.
func asDenied(err error, action string) error {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return nil
	}
	switch ae.ErrorCode() {
	case "AccessDenied", "AccessDeniedException", "UnauthorizedOperation":
		return &DeniedError{Action: action, Code: ae.ErrorCode()}
	}
	return nil
}

// InstanceTypeZoneIDs asks EC2 (DescribeInstanceTypeOfferings, by zone
// ID) in which availability zones of cfg's region it offers the instance
// type: zone IDs such as eun1-az1, none when the region has no such type.
func InstanceTypeZoneIDs(ctx context.Context, cfg aws.Config, instanceType string) ([]string, error) {
	form := url.Values{"Action": {"DescribeInstanceTypeOfferings"}, "LocationType": {"availability-zone-id"},
		"Filter.1.Name": {"instance-type"}, "Filter.1.Value.1": {instanceType}}
	var zones []string
	err := ec2Pages(ctx, cfg, form, "list the zones offering "+instanceType, func(data []byte) (string, error) {
		var page struct {
			Items []struct {
				Location string `xml:"location"`
			} `xml:"instanceTypeOfferingSet>item"`
			Next string `xml:"nextToken"`
		}
		err := xml.Unmarshal(data, &page)
		for _, it := range page.Items {
			zones = append(zones, it.Location)
		}
		return page.Next, err
	})
	return zones, err
}

// AddonVersions asks EKS (DescribeAddonVersions) which versions of an
// add-on it offers for clusters of a Kubernetes minor. A credential
// without eks:DescribeAddonVersions gets a *DeniedError.
func AddonVersions(ctx context.Context, cfg aws.Config, addon, minor string) ([]string, error) {
	const action = "eks:DescribeAddonVersions"
	var versions []string
	q := url.Values{"addonName": {addon}, "kubernetesVersion": {minor}}
	for {
		req, err := newRequest(ctx, http.MethodGet, endpoint(cfg, "eks")+"/addons/supported-versions?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		data, err := send(ctx, cfg, "eks", req, nil, jsonError)
		if d := asDenied(err, action); d != nil {
			return nil, d
		}
		if err != nil {
			return nil, classifyRaw(err, "list the versions of add-on "+addon+" with "+action)
		}
		var out struct {
			Addons []struct {
				Versions []struct {
					Version string `json:"addonVersion"`
				} `json:"addonVersions"`
			} `json:"addons"`
			NextToken string `json:"nextToken"`
		}
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, unreadable(action, err)
		}
		for _, a := range out.Addons {
			for _, v := range a.Versions {
				versions = append(versions, v.Version)
			}
		}
		if out.NextToken == "" {
			return versions, nil
		}
		q.Set("nextToken", out.NextToken)
	}
}

// OnDemandStandardVCPUQuota is the quota code of EC2's "Running On-Demand
// Standard (A, C, D, H, I, M, R, T, Z) instances", in vCPUs.
const OnDemandStandardVCPUQuota = "L-1216C47A"

// VCPUQuota asks Service Quotas (GetServiceQuota, and for a quota never
// raised GetAWSDefaultServiceQuota) how many vCPUs of on-demand standard
// instances the account may run in cfg's region. A credential without
// servicequotas:GetServiceQuota gets a *DeniedError.
func VCPUQuota(ctx context.Context, cfg aws.Config) (float64, error) {
	client := servicequotas.NewFromConfig(cfg)
	in := &servicequotas.GetServiceQuotaInput{ServiceCode: aws.String("ec2"), QuotaCode: aws.String(OnDemandStandardVCPUQuota)}
	out, err := client.GetServiceQuota(ctx, in)
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "NoSuchResourceException" {
		def, derr := client.GetAWSDefaultServiceQuota(ctx, &servicequotas.GetAWSDefaultServiceQuotaInput{
			ServiceCode: in.ServiceCode, QuotaCode: in.QuotaCode})
		if d := asDenied(derr, "servicequotas:GetAWSDefaultServiceQuota"); d != nil {
			return 0, d
		}
		if derr != nil {
			return 0, classify(derr, "read the default vCPU quota with servicequotas:GetAWSDefaultServiceQuota")
		}
		if def.Quota == nil || def.Quota.Value == nil {
			return 0, errors.New("servicequotas:GetAWSDefaultServiceQuota answered no value")
		}
		return *def.Quota.Value, nil
	}
	if d := asDenied(err, "servicequotas:GetServiceQuota"); d != nil {
		return 0, d
	}
	if err != nil {
		return 0, classify(err, "read the vCPU quota "+OnDemandStandardVCPUQuota+" with servicequotas:GetServiceQuota")
	}
	if out.Quota == nil || out.Quota.Value == nil {
		return 0, errors.New("servicequotas:GetServiceQuota answered no value")
	}
	return *out.Quota.Value, nil
}
