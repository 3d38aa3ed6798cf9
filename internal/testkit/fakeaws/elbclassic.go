package fakeaws

import (
	"encoding/xml"
	"net/http"
	"net/url"
)

const elbClassicNamespace = "http://elasticloadbalancing.amazonaws.com/doc/2012-06-01/"

// ClassicLoadBalancer is a Classic Load Balancer, as the cloud controller
// makes for a LoadBalancer Service without the NLB annotation.
type ClassicLoadBalancer struct {
	Name, VPC string
	Tags      map[string]string
}

// AddClassicLoadBalancer adds a Classic Load Balancer, served on the same
// endpoint as ELBv2 (AWS's one host, told apart by the Version).
func (e *ELBv2) AddClassicLoadBalancer(lb ClassicLoadBalancer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.classic == nil {
		e.classic = map[string]ClassicLoadBalancer{}
	}
	e.classic[lb.Name] = lb
}

// ClassicExists reports whether the Classic Load Balancer name exists.
func (e *ELBv2) ClassicExists(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.classic[name]
	return ok
}

type classicAnswer struct {
	XMLName xml.Name
	Xmlns   string `xml:"xmlns,attr"`
	Result  struct {
		XMLName xml.Name
		LBs     []struct {
			Name string `xml:"LoadBalancerName"`
			VPC  string `xml:"VPCId"`
		} `xml:"LoadBalancerDescriptions>member,omitempty"`
		Tags []struct {
			Name string   `xml:"LoadBalancerName"`
			Tags []elbTag `xml:"Tags>member"`
		} `xml:"TagDescriptions>member,omitempty"`
	}
	RequestID string `xml:"ResponseMetadata>RequestId"`
}

// serveClassic answers DescribeLoadBalancers, DescribeTags and
// DeleteLoadBalancer of the Classic API (Version 2012-06-01); every
// Describe is one page.
func (e *ELBv2) serveClassic(w http.ResponseWriter, form url.Values) {
	e.mu.Lock()
	defer e.mu.Unlock()
	action := form.Get("Action")
	var ans classicAnswer
	ans.XMLName, ans.Xmlns, ans.RequestID = xml.Name{Local: action + "Response"}, elbClassicNamespace, requestID()
	ans.Result.XMLName = xml.Name{Local: action + "Result"}
	switch action {
	case "DescribeLoadBalancers":
		for _, name := range sortedKeys(e.classic) {
			ans.Result.LBs = append(ans.Result.LBs, struct {
				Name string `xml:"LoadBalancerName"`
				VPC  string `xml:"VPCId"`
			}{name, e.classic[name].VPC})
		}
	case "DescribeTags":
		names := membersOf(form, "LoadBalancerNames.member.")
		if len(names) > 20 {
			elbError(w, http.StatusBadRequest, "ValidationError", "at most 20 load balancer names")
			return
		}
		for _, name := range names {
			lb, ok := e.classic[name]
			if !ok {
				elbError(w, http.StatusBadRequest, "LoadBalancerNotFound", "There is no ACTIVE Load Balancer named '"+name+"'")
				return
			}
			var ts []elbTag
			for _, t := range tagSet(lb.Tags) {
				ts = append(ts, elbTag(t))
			}
			ans.Result.Tags = append(ans.Result.Tags, struct {
				Name string   `xml:"LoadBalancerName"`
				Tags []elbTag `xml:"Tags>member"`
			}{name, ts})
		}
	case "DeleteLoadBalancer":
		delete(e.classic, form.Get("LoadBalancerName")) // AWS answers success for an unknown name too
	default:
		elbError(w, http.StatusBadRequest, "InvalidAction", "The action "+action+" is not valid for this web service.")
		return
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	_ = xml.NewEncoder(w).Encode(ans)
}
