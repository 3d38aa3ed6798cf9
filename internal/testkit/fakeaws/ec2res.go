package fakeaws

import (
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Volume is an EBS volume the fake EC2 knows.
type Volume struct {
	ID string
	// State as EC2 names it: available, in-use.
	State string
	// Instance the volume is attached to, for in-use volumes.
	Instance string
	Tags     map[string]string
}

// SecurityGroup is a security group the fake EC2 knows.
type SecurityGroup struct {
	ID, Name string
	Tags     map[string]string
	// InUse makes DeleteSecurityGroup fail with DependencyViolation, as
	// while a network interface still uses the group.
	InUse bool
}

// ec2Resources are the volumes and security groups of the fake EC2.
type ec2Resources struct {
	mu      sync.Mutex
	volumes map[string]Volume
	groups  map[string]SecurityGroup
	// calls counts the answered calls by action.
	calls map[string]int
	// pageSize: see EC2.SetPageSize.
	pageSize int
}

// AddVolume adds (or replaces) a volume.
func (e *EC2) AddVolume(v Volume) { e.resources.put(func(r *ec2Resources) { r.volumes[v.ID] = v }) }

// AddSecurityGroup adds (or replaces) a security group.
func (e *EC2) AddSecurityGroup(g SecurityGroup) {
	e.resources.put(func(r *ec2Resources) { r.groups[g.ID] = g })
}

// Volume returns the volume id, if it still exists.
func (e *EC2) Volume(id string) (Volume, bool) {
	e.resources.mu.Lock()
	defer e.resources.mu.Unlock()
	v, ok := e.resources.volumes[id]
	return v, ok
}

// SecurityGroup returns the security group id, if it still exists.
func (e *EC2) SecurityGroup(id string) (SecurityGroup, bool) {
	e.resources.mu.Lock()
	defer e.resources.mu.Unlock()
	g, ok := e.resources.groups[id]
	return g, ok
}

// SetPageSize makes a paginated DescribeVolumes or DescribeSecurityGroups
// (one with MaxResults, 5 to 1000 as in AWS) answer at most n items before
// a NextToken, fewer than MaxResults asks for, so a test sees several
// pages without a thousand resources; 0 means MaxResults alone decides.
// A Describe without MaxResults answers everything, as AWS does.
func (e *EC2) SetPageSize(n int) { e.resources.put(func(r *ec2Resources) { r.pageSize = n }) }

// CallsOf returns how many calls of a volume or security group action
// (e.g. "DescribeVolumes") were answered, a page each for a Describe.
func (e *EC2) CallsOf(action string) int {
	e.resources.mu.Lock()
	defer e.resources.mu.Unlock()
	return e.resources.calls[action]
}

func (r *ec2Resources) put(f func(*ec2Resources)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.volumes == nil {
		r.volumes, r.groups, r.calls = map[string]Volume{}, map[string]SecurityGroup{}, map[string]int{}
	}
	f(r)
}

// filters reads EC2's Filter.N.Name / Filter.N.Value.M parameters.
func filters(form url.Values) map[string][]string {
	out := map[string][]string{}
	for k := range form {
		rest, ok := strings.CutPrefix(k, "Filter.")
		n, field, _ := strings.Cut(rest, ".")
		if !ok || field != "Name" {
			continue
		}
		for vk, vv := range form {
			if strings.HasPrefix(vk, "Filter."+n+".Value.") {
				out[form.Get(k)] = append(out[form.Get(k)], vv...)
			}
		}
	}
	return out
}

// matches applies the filters EC2 supports here: tag:<key> and, for
// volumes, status.
func matches(f map[string][]string, tags map[string]string, status string) bool {
	for name, values := range f {
		var got string
		var ok bool
		switch {
		case strings.HasPrefix(name, "tag:"):
			got, ok = tags[strings.TrimPrefix(name, "tag:")]
		case name == "status":
			got, ok = status, true
		}
		if !ok || !contains(values, got) {
			return false
		}
	}
	return true
}

type ec2Tag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

func tagSet(tags map[string]string) []ec2Tag {
	out := make([]ec2Tag, 0, len(tags))
	for k, v := range tags {
		out = append(out, ec2Tag{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

type volumeItem struct {
	ID          string   `xml:"volumeId"`
	Status      string   `xml:"status"`
	Attachments []string `xml:"attachmentSet>item>instanceId"`
	Tags        []ec2Tag `xml:"tagSet>item"`
}

type groupItem struct {
	ID   string   `xml:"groupId"`
	Name string   `xml:"groupName"`
	Tags []ec2Tag `xml:"tagSet>item"`
}

type ec2Answer struct {
	XMLName   xml.Name
	Xmlns     string       `xml:"xmlns,attr"`
	RequestID string       `xml:"requestId"`
	Volumes   []volumeItem `xml:"volumeSet>item,omitempty"`
	Groups    []groupItem  `xml:"securityGroupInfo>item,omitempty"`
	NextToken string       `xml:"nextToken,omitempty"`
	Return    string       `xml:"return,omitempty"`
}

// page returns the ids of one Describe page of the matching ids (sorted)
// and the NextToken of the next ("" on the last), or an EC2 error code and
// message for a MaxResults or NextToken AWS would refuse. The token is the
// last id of the page, opaque to the caller.
func (r *ec2Resources) page(ids []string, form url.Values) (page []string, next, code, msg string) {
	max, token := form.Get("MaxResults"), form.Get("NextToken")
	if max == "" {
		if token != "" {
			return nil, "", "InvalidParameterCombination", "NextToken needs MaxResults"
		}
		return ids, "", "", ""
	}
	n, err := strconv.Atoi(max)
	if err != nil || n < 5 || n > 1000 {
		return nil, "", "InvalidParameterValue", "MaxResults must be between 5 and 1000, got " + max
	}
	if r.pageSize > 0 {
		n = min(n, r.pageSize)
	}
	start := 0
	if token != "" {
		last, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil {
			return nil, "", "InvalidNextToken", "The token '" + token + "' is invalid."
		}
		start = sort.SearchStrings(ids, string(last))
		if start < len(ids) && ids[start] == string(last) {
			start++
		}
	}
	end := min(start+n, len(ids))
	if end < len(ids) {
		next = base64.RawURLEncoding.EncodeToString([]byte(ids[end-1]))
	}
	return ids[start:end], next, "", ""
}

// describe fills ans with a page of the volumes or security groups that
// match the filters, or returns the error code and message of a refused
// MaxResults or NextToken.
func (r *ec2Resources) describe(form url.Values, ans *ec2Answer) (code, msg string) {
	f, volumes := filters(form), form.Get("Action") == "DescribeVolumes"
	var ids []string
	if volumes {
		for _, id := range sortedKeys(r.volumes) {
			if v := r.volumes[id]; matches(f, v.Tags, v.State) {
				ids = append(ids, id)
			}
		}
	} else {
		for _, id := range sortedKeys(r.groups) {
			if g := r.groups[id]; matches(f, g.Tags, "") {
				ids = append(ids, id)
			}
		}
	}
	page, next, code, msg := r.page(ids, form)
	if code != "" {
		return code, msg
	}
	ans.NextToken = next
	for _, id := range page {
		if !volumes {
			g := r.groups[id]
			ans.Groups = append(ans.Groups, groupItem{ID: g.ID, Name: g.Name, Tags: tagSet(g.Tags)})
			continue
		}
		v := r.volumes[id]
		it := volumeItem{ID: v.ID, Status: v.State, Tags: tagSet(v.Tags)}
		if v.Instance != "" {
			it.Attachments = []string{v.Instance}
		}
		ans.Volumes = append(ans.Volumes, it)
	}
	return "", ""
}

func (r *ec2Resources) serve(w http.ResponseWriter, form url.Values) {
	r.put(func(*ec2Resources) {}) // make the maps
	r.mu.Lock()
	defer r.mu.Unlock()
	action := form.Get("Action")
	ans := ec2Answer{XMLName: xml.Name{Local: action + "Response"}, Xmlns: ec2Namespace, RequestID: requestID()}
	switch action {
	case "DescribeVolumes", "DescribeSecurityGroups":
		if code, msg := r.describe(form, &ans); code != "" {
			ec2Error(w, http.StatusBadRequest, code, msg)
			return
		}
	case "DeleteVolume":
		v, ok := r.volumes[form.Get("VolumeId")]
		switch {
		case !ok:
			ec2Error(w, http.StatusBadRequest, "InvalidVolume.NotFound", "The volume '"+form.Get("VolumeId")+"' does not exist.")
			return
		case v.State != "available":
			ec2Error(w, http.StatusBadRequest, "VolumeInUse", "Volume "+v.ID+" is currently attached to "+v.Instance)
			return
		}
		delete(r.volumes, v.ID)
		ans.Return = "true"
	case "DeleteSecurityGroup":
		g, ok := r.groups[form.Get("GroupId")]
		switch {
		case !ok:
			ec2Error(w, http.StatusBadRequest, "InvalidGroup.NotFound", "The security group '"+form.Get("GroupId")+"' does not exist")
			return
		case g.InUse:
			ec2Error(w, http.StatusBadRequest, "DependencyViolation", "resource "+g.ID+" has a dependent object")
			return
		}
		delete(r.groups, g.ID)
		ans.Return = "true"
	}
	r.calls[action]++
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	_ = xml.NewEncoder(w).Encode(ans)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
