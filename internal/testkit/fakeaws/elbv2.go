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

const elbv2Namespace = "http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"

// LoadBalancer is an Elastic Load Balancing v2 load balancer (an NLB).
type LoadBalancer struct {
	ARN, Name string
	Tags      map[string]string
}

// TargetGroup is an ELBv2 target group; while a load balancer in
// LoadBalancers uses it, DeleteTargetGroup fails with ResourceInUse.
type TargetGroup struct {
	ARN, Name     string
	Tags          map[string]string
	LoadBalancers []string
}

// ELBv2 is a fake Elastic Load Balancing v2 speaking the query protocol
// (form-encoded POSTs, XML answers): DescribeLoadBalancers,
// DescribeTargetGroups, DescribeTags, DeleteLoadBalancer,
// DeleteTargetGroup; and, for Version 2012-06-01, the Classic Load
// Balancer calls of elbclassic.go.
type ELBv2 struct {
	iam *IAM

	mu      sync.Mutex
	lbs     map[string]LoadBalancer
	groups  map[string]TargetGroup
	classic map[string]ClassicLoadBalancer

	// PageSize is how many load balancers or target groups one Describe
	// answers before a NextMarker (AWS: at most 400); 0 means 400.
	PageSize int
}

// NewELBv2 returns an empty ELBv2 that accepts the keys of iam.
func NewELBv2(iam *IAM) *ELBv2 {
	return &ELBv2{iam: iam, lbs: map[string]LoadBalancer{}, groups: map[string]TargetGroup{}}
}

// AddLoadBalancer adds a load balancer.
func (e *ELBv2) AddLoadBalancer(lb LoadBalancer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lbs[lb.ARN] = lb
}

// AddTargetGroup adds a target group.
func (e *ELBv2) AddTargetGroup(tg TargetGroup) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.groups[tg.ARN] = tg
}

// Exists reports whether a load balancer or target group arn exists.
func (e *ELBv2) Exists(arn string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, lb := e.lbs[arn]
	_, tg := e.groups[arn]
	return lb || tg
}

type elbTag struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type elbResult struct {
	XMLName       xml.Name
	LoadBalancers []struct {
		ARN  string `xml:"LoadBalancerArn"`
		Name string `xml:"LoadBalancerName"`
	} `xml:"LoadBalancers>member,omitempty"`
	TargetGroups []struct {
		ARN  string   `xml:"TargetGroupArn"`
		Name string   `xml:"TargetGroupName"`
		LBs  []string `xml:"LoadBalancerArns>member"`
	} `xml:"TargetGroups>member,omitempty"`
	TagDescriptions []struct {
		ARN  string   `xml:"ResourceArn"`
		Tags []elbTag `xml:"Tags>member"`
	} `xml:"TagDescriptions>member,omitempty"`
	NextMarker string `xml:"NextMarker,omitempty"`
}

type elbAnswer struct {
	XMLName   xml.Name
	Xmlns     string `xml:"xmlns,attr"`
	Result    elbResult
	RequestID string `xml:"ResponseMetadata>RequestId"`
}

// ServeHTTP answers one ELBv2 query-protocol request.
func (e *ELBv2) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPost {
		elbError(w, http.StatusBadRequest, "InvalidAction", "requests are form-encoded POSTs")
		return
	}
	if _, _, aerr := e.iam.verifyHeader(r, body, "elasticloadbalancing", time.Now()); aerr != nil {
		code := "InvalidClientTokenId"
		if aerr.kind == authBadSignature {
			code = "SignatureDoesNotMatch"
		}
		elbError(w, http.StatusForbidden, code, aerr.msg)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err == nil && form.Get("Version") == "2012-06-01" {
		e.serveClassic(w, form)
		return
	}
	if err != nil || form.Get("Version") != "2015-12-01" {
		elbError(w, http.StatusBadRequest, "InvalidParameterValue", "Version must be 2015-12-01")
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	action := form.Get("Action")
	res := elbResult{XMLName: xml.Name{Local: action + "Result"}}
	switch action {
	case "DescribeLoadBalancers":
		var page []string
		page, res.NextMarker = e.page(sortedKeys(e.lbs), form.Get("Marker"))
		for _, arn := range page {
			res.LoadBalancers = append(res.LoadBalancers, struct {
				ARN  string `xml:"LoadBalancerArn"`
				Name string `xml:"LoadBalancerName"`
			}{arn, e.lbs[arn].Name})
		}
	case "DescribeTargetGroups":
		var page []string
		page, res.NextMarker = e.page(sortedKeys(e.groups), form.Get("Marker"))
		for _, arn := range page {
			tg := e.groups[arn]
			res.TargetGroups = append(res.TargetGroups, struct {
				ARN  string   `xml:"TargetGroupArn"`
				Name string   `xml:"TargetGroupName"`
				LBs  []string `xml:"LoadBalancerArns>member"`
			}{arn, tg.Name, tg.LoadBalancers})
		}
	case "DescribeTags":
		var arns []string
		for k, v := range form {
			if strings.HasPrefix(k, "ResourceArns.member.") {
				arns = append(arns, v...)
			}
		}
		if len(arns) > 20 {
			elbError(w, http.StatusBadRequest, "ValidationError", "at most 20 resource ARNs")
			return
		}
		for _, arn := range arns {
			tags, ok := e.lbs[arn].Tags, true
			if _, lb := e.lbs[arn]; !lb {
				var tg TargetGroup
				tg, ok = e.groups[arn]
				tags = tg.Tags
			}
			if !ok {
				elbError(w, http.StatusBadRequest, "LoadBalancerNotFound", "no such resource "+arn)
				return
			}
			var ts []elbTag
			for _, t := range tagSet(tags) {
				ts = append(ts, elbTag(t))
			}
			res.TagDescriptions = append(res.TagDescriptions, struct {
				ARN  string   `xml:"ResourceArn"`
				Tags []elbTag `xml:"Tags>member"`
			}{arn, ts})
		}
	case "DeleteLoadBalancer":
		arn := form.Get("LoadBalancerArn")
		delete(e.lbs, arn) // AWS answers success for an unknown ARN too
		for k, tg := range e.groups {
			tg.LoadBalancers = without(tg.LoadBalancers, arn)
			e.groups[k] = tg
		}
	case "DeleteTargetGroup":
		arn := form.Get("TargetGroupArn")
		if tg, ok := e.groups[arn]; ok && len(tg.LoadBalancers) > 0 {
			elbError(w, http.StatusBadRequest, "ResourceInUse", "Target group '"+arn+"' is currently in use by a listener or a rule")
			return
		}
		delete(e.groups, arn)
	default:
		elbError(w, http.StatusBadRequest, "InvalidAction", "The action "+action+" is not valid for this web service.")
		return
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	ans := elbAnswer{XMLName: xml.Name{Local: action + "Response"}, Xmlns: elbv2Namespace, RequestID: requestID(), Result: res}
	_ = xml.NewEncoder(w).Encode(ans)
}

// page returns the keys after marker (the last key of the previous page),
// PageSize of them, and the marker of the next page ("" on the last).
func (e *ELBv2) page(keys []string, marker string) ([]string, string) {
	size := e.PageSize
	if size <= 0 {
		size = 400
	}
	start := 0
	if marker != "" {
		start = sort.SearchStrings(keys, marker) + 1
	}
	end := min(start+size, len(keys))
	if start >= end {
		return nil, ""
	}
	if end < len(keys) {
		return keys[start:end], keys[end-1]
	}
	return keys[start:end], ""
}

func without(l []string, s string) []string {
	var out []string
	for _, x := range l {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

type elbErrorResponse struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Error   struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

func elbError(w http.ResponseWriter, status int, code, msg string) {
	body := elbErrorResponse{Xmlns: elbv2Namespace, RequestID: requestID()}
	body.Error.Type, body.Error.Code, body.Error.Message = "Sender", code, msg
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(status)
	_ = xml.NewEncoder(w).Encode(body)
}
