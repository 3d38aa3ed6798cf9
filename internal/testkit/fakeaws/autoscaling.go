package fakeaws

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

const autoScalingNamespace = "http://autoscaling.amazonaws.com/doc/2011-01-01/"

// Auto Scaling lifecycle states of an instance in a group.
const (
	InService   = "InService"
	Pending     = "Pending"
	Terminating = "Terminating"
)

// GroupInstance is one instance of an Auto Scaling group.
type GroupInstance struct {
	ID string
	// State is its lifecycle state: InService, Pending, Terminating, ...
	State string
}

// AutoScaling is a fake Amazon EC2 Auto Scaling speaking the query
// protocol (form-encoded POSTs, XML answers): DescribeAutoScalingGroups
// and TerminateInstanceInAutoScalingGroup, which, without decrementing
// the desired capacity, puts a new InService instance in the group.
type AutoScaling struct {
	iam *IAM

	mu         sync.Mutex
	groups     map[string][]GroupInstance
	terminated []string
}

// NewAutoScaling returns an Auto Scaling without groups that accepts the
// keys of iam.
func NewAutoScaling(iam *IAM) *AutoScaling {
	return &AutoScaling{iam: iam, groups: map[string][]GroupInstance{}}
}

// SetGroup adds or replaces a group and its instances.
func (a *AutoScaling) SetGroup(name string, instances ...GroupInstance) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.groups[name] = slices.Clone(instances)
}

// Group returns a group's instances.
func (a *AutoScaling) Group(name string) []GroupInstance {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.groups[name])
}

// Terminated returns the instances TerminateInstanceInAutoScalingGroup
// was asked to terminate, in order.
func (a *AutoScaling) Terminated() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.terminated)
}

type asgInstance struct {
	ID     string `xml:"InstanceId"`
	State  string `xml:"LifecycleState"`
	Health string `xml:"HealthStatus"`
}

type asgGroup struct {
	Name      string        `xml:"AutoScalingGroupName"`
	Instances []asgInstance `xml:"Instances>member"`
}

type asgAnswer struct {
	XMLName   xml.Name
	Xmlns     string     `xml:"xmlns,attr"`
	Groups    []asgGroup `xml:"DescribeAutoScalingGroupsResult>AutoScalingGroups>member,omitempty"`
	Activity  string     `xml:"TerminateInstanceInAutoScalingGroupResult>Activity>ActivityId,omitempty"`
	RequestID string     `xml:"ResponseMetadata>RequestId"`
}

// ServeHTTP answers one Auto Scaling query-protocol request.
func (a *AutoScaling) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPost {
		elbError(w, http.StatusBadRequest, "InvalidAction", "requests are form-encoded POSTs")
		return
	}
	if _, _, aerr := a.iam.verifyHeader(r, body, "autoscaling", time.Now()); aerr != nil {
		code := "InvalidClientTokenId"
		if aerr.kind == authBadSignature {
			code = "SignatureDoesNotMatch"
		}
		elbError(w, http.StatusForbidden, code, aerr.msg)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("Version") != "2011-01-01" {
		elbError(w, http.StatusBadRequest, "InvalidParameterValue", "Version must be 2011-01-01")
		return
	}
	action := form.Get("Action")
	if a.iam.denied("autoscaling:" + action) {
		elbError(w, http.StatusForbidden, "AccessDenied", "User is not authorized to perform: autoscaling:"+action)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ans := asgAnswer{XMLName: xml.Name{Local: action + "Response"}, Xmlns: autoScalingNamespace, RequestID: requestID()}
	switch action {
	case "DescribeAutoScalingGroups":
		for _, name := range membersOf(form, "AutoScalingGroupNames.member.") {
			g, ok := a.groups[name]
			if !ok {
				continue // AWS leaves unknown names out
			}
			out := asgGroup{Name: name}
			for _, i := range g {
				out.Instances = append(out.Instances, asgInstance{ID: i.ID, State: i.State, Health: "Healthy"})
			}
			ans.Groups = append(ans.Groups, out)
		}
	case "TerminateInstanceInAutoScalingGroup":
		if !a.terminate(w, form) {
			return
		}
		ans.Activity = requestID()
	default:
		elbError(w, http.StatusBadRequest, "InvalidAction", "The action "+action+" is not valid for this web service.")
		return
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	_ = xml.NewEncoder(w).Encode(ans)
}

// terminate takes an instance out of its group and, unless the desired
// capacity is decremented, puts a fresh one in; false when it answered an
// error.
func (a *AutoScaling) terminate(w http.ResponseWriter, form url.Values) bool {
	id := form.Get("InstanceId")
	for name, g := range a.groups {
		i := slices.IndexFunc(g, func(x GroupInstance) bool { return x.ID == id })
		if i < 0 {
			continue
		}
		g = slices.Delete(g, i, i+1)
		if form.Get("ShouldDecrementDesiredCapacity") != "true" {
			g = append(g, GroupInstance{ID: "i-0" + randomString(16, "0123456789abcdef"), State: InService})
		}
		a.groups[name] = g
		a.terminated = append(a.terminated, id)
		return true
	}
	elbError(w, http.StatusBadRequest, "ValidationError", "Instance Id not found - No managed instance found for instance ID: "+id)
	return false
}

// membersOf reads a query-protocol list (prefix1, prefix2, ...).
func membersOf(form url.Values, prefix string) []string {
	var out []string
	for k, v := range form {
		if strings.HasPrefix(k, prefix) {
			out = append(out, v...)
		}
	}
	slices.Sort(out)
	return out
}
