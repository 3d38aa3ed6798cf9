package fakeaws

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

const ec2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/"

// InstanceType is what the fake EC2 knows of one instance type.
type InstanceType struct {
	Name      string
	VCPUs     int
	MemoryMiB int
	// Architectures as EC2 names them: x86_64, arm64.
	Architectures []string
}

// DefaultInstanceTypes are the types a new EC2 knows.
var DefaultInstanceTypes = []InstanceType{
	{"t3.micro", 2, 1024, []string{"x86_64"}},
	{"t3.small", 2, 2048, []string{"x86_64"}},
	{"t3.medium", 2, 4096, []string{"x86_64"}},
	{"t2.micro", 1, 1024, []string{"i386", "x86_64"}},
	{"m6i.large", 2, 8192, []string{"x86_64"}},
	{"m7g.large", 2, 8192, []string{"arm64"}},
}

// EC2 is a fake Amazon EC2 speaking the EC2 query protocol (form-encoded
// POSTs, XML answers): DescribeInstanceTypes, DescribeInstanceTypeOfferings
// (ec2offer.go), the volume and security group calls of ec2res.go, and
// the VPC, network interface and VPC endpoint calls of ec2net.go.
type EC2 struct {
	iam *IAM

	mu        sync.Mutex
	types     map[string]InstanceType
	offerings map[string][]string // instance type -> zone IDs
	calls     int

	resources ec2Resources
	network   ec2Network
}

// NewEC2 returns an EC2 that knows DefaultInstanceTypes and accepts the
// keys of iam.
func NewEC2(iam *IAM) *EC2 {
	e := &EC2{iam: iam, types: map[string]InstanceType{}, offerings: map[string][]string{}}
	for _, t := range DefaultInstanceTypes {
		e.types[t.Name] = t
		e.offerings[t.Name] = DefaultZoneIDs
	}
	return e
}

// Calls returns how many DescribeInstanceTypes calls were answered.
func (e *EC2) Calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

type ec2Item struct {
	InstanceType string `xml:"instanceType"`
	VCPU         struct {
		DefaultVCpus int `xml:"defaultVCpus"`
	} `xml:"vCpuInfo"`
	Memory struct {
		SizeInMiB int `xml:"sizeInMiB"`
	} `xml:"memoryInfo"`
	Processor struct {
		Architectures []string `xml:"supportedArchitectures>item"`
	} `xml:"processorInfo"`
}

type describeInstanceTypesResponse struct {
	XMLName   xml.Name  `xml:"DescribeInstanceTypesResponse"`
	Xmlns     string    `xml:"xmlns,attr"`
	RequestID string    `xml:"requestId"`
	Items     []ec2Item `xml:"instanceTypeSet>item"`
}

// ServeHTTP answers one EC2 query-protocol request.
func (e *EC2) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPost {
		ec2Error(w, http.StatusBadRequest, "InvalidAction", "requests are form-encoded POSTs")
		return
	}
	if _, _, aerr := e.iam.verifyHeader(r, body, "ec2", time.Now()); aerr != nil {
		code := "AuthFailure"
		switch aerr.kind {
		case authMissing:
			code = "MissingAuthenticationToken"
		case authExpiredToken:
			code = "RequestExpired"
		}
		ec2Error(w, http.StatusUnauthorized, code, aerr.msg)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("Version") != "2016-11-15" {
		ec2Error(w, http.StatusBadRequest, "InvalidParameterValue", "Version must be 2016-11-15")
		return
	}
	if e.iam.denied("ec2:" + form.Get("Action")) {
		ec2Error(w, http.StatusForbidden, "UnauthorizedOperation", "You are not authorized to perform this operation.")
		return
	}
	switch form.Get("Action") {
	case "DescribeInstanceTypeOfferings":
		e.describeOfferings(w, form)
	case "DescribeInstanceTypes":
		e.describeInstanceTypes(w, form)
	case "DescribeVolumes", "DeleteVolume", "DescribeSecurityGroups", "DeleteSecurityGroup":
		e.resources.serve(w, form)
	case "DescribeVpcs", "DescribeNetworkInterfaces", "DeleteNetworkInterface", "DescribeVpcEndpoints", "DeleteVpcEndpoints":
		e.network.serve(w, form)
	default:
		ec2Error(w, http.StatusBadRequest, "InvalidAction", "The action "+form.Get("Action")+" is not valid for this web service.")
	}
}

func (e *EC2) describeInstanceTypes(w http.ResponseWriter, form url.Values) {
	var names []string
	for k, v := range form {
		if strings.HasPrefix(k, "InstanceType.") {
			names = append(names, v...)
		}
	}
	sort.Strings(names)
	e.mu.Lock()
	e.calls++
	var items []ec2Item
	var unknown []string
	for _, n := range names {
		t, ok := e.types[n]
		if !ok {
			unknown = append(unknown, n)
			continue
		}
		var it ec2Item
		it.InstanceType, it.VCPU.DefaultVCpus, it.Memory.SizeInMiB = t.Name, t.VCPUs, t.MemoryMiB
		it.Processor.Architectures = t.Architectures
		items = append(items, it)
	}
	e.mu.Unlock()
	if len(unknown) > 0 {
		ec2Error(w, http.StatusBadRequest, "InvalidInstanceType",
			"The following supplied instance types do not exist: ["+strings.Join(unknown, ", ")+"]")
		return
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	_ = xml.NewEncoder(w).Encode(describeInstanceTypesResponse{Xmlns: ec2Namespace, RequestID: requestID(), Items: items})
}

type ec2ErrorResponse struct {
	XMLName xml.Name `xml:"Response"`
	Errors  struct {
		Error struct {
			Code    string `xml:"Code"`
			Message string `xml:"Message"`
		} `xml:"Error"`
	} `xml:"Errors"`
	RequestID string `xml:"RequestID"`
}

func ec2Error(w http.ResponseWriter, status int, code, msg string) {
	var body ec2ErrorResponse
	body.Errors.Error.Code, body.Errors.Error.Message, body.RequestID = code, msg, requestID()
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(status)
	_ = xml.NewEncoder(w).Encode(body)
}
