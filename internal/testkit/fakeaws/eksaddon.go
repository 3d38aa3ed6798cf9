package fakeaws

import (
	"embed"
	"encoding/json"
	"net/http"
	"slices"
)

// addonSchemas are stored copies of add-on configuration schemas, shaped
// as EKS publishes them (aws eks describe-addon-configuration): the EBS
// CSI driver's takes only extraVolumeTags under controller, as the
// schema quoted in aws/amazon-vpc-cni-k8s#2272 did, which is the one key
// it has had in every version shown.
//
//go:embed addonschemas/*.json
var addonSchemas embed.FS

// AddonSchema returns the stored configuration schema of an add-on (e.g.
// aws-ebs-csi-driver), the one DescribeAddonConfiguration serves for each
// of its versions; nil for an add-on without one.
func AddonSchema(addon string) []byte {
	data, err := addonSchemas.ReadFile("addonschemas/" + addon + ".json")
	if err != nil {
		return nil
	}
	return data
}

// SetAddonSchema makes DescribeAddonConfiguration answer schema for every
// version of addon instead of the stored copy.
func (e *EKS) SetAddonSchema(addon string, schema []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.schemas == nil {
		e.schemas = map[string][]byte{}
	}
	e.schemas[addon] = schema
}

// Cluster is an EKS cluster DescribeCluster knows.
type Cluster struct {
	Name string
	// Version is the cluster's Kubernetes minor, e.g. 1.35: what EKS
	// upgraded it to, which may be newer than what was asked for.
	Version string
	// Status as EKS names it: ACTIVE, UPDATING, ...
	Status string
}

// SetCluster adds or replaces a cluster.
func (e *EKS) SetCluster(c Cluster) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.clusters == nil {
		e.clusters = map[string]Cluster{}
	}
	e.clusters[c.Name] = c
}

func (e *EKS) describeCluster(w http.ResponseWriter, name string) {
	e.mu.Lock()
	c, ok := e.clusters[name]
	e.mu.Unlock()
	if !ok {
		eksError(w, http.StatusNotFound, "ResourceNotFoundException", "No cluster found for name: "+name+".")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Requestid", requestID())
	_ = json.NewEncoder(w).Encode(map[string]any{"cluster": map[string]any{
		"name": c.Name, "version": c.Version, "status": c.Status,
		"arn": "arn:aws:eks:eu-north-1:123456789012:cluster/" + c.Name}})
}

// describeAddonConfiguration answers the stored schema of an add-on
// version EKS offers; EKS answers InvalidParameterException for a version
// it does not know.
func (e *EKS) describeAddonConfiguration(w http.ResponseWriter, r *http.Request) {
	name, version := r.URL.Query().Get("addonName"), r.URL.Query().Get("addonVersion")
	e.mu.Lock()
	offered := slices.ContainsFunc(e.addons, func(a AddonVersion) bool { return a.Addon == name && a.Version == version })
	schema, set := e.schemas[name]
	e.mu.Unlock()
	if !set {
		schema = AddonSchema(name)
	}
	if !offered || schema == nil {
		eksError(w, http.StatusBadRequest, "InvalidParameterException", "Addon version specified is not supported: "+name+" "+version)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Requestid", requestID())
	_ = json.NewEncoder(w).Encode(map[string]any{"addonName": name, "addonVersion": version,
		"configurationSchema": string(schema), "podIdentityConfiguration": []any{}})
}
