package fakeaws

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"sync"
)

// VPC is a VPC the fake EC2 knows.
type VPC struct {
	ID   string
	Tags map[string]string
}

// NetworkInterface is an elastic network interface the fake EC2 knows.
type NetworkInterface struct {
	ID, VPC, Subnet string
	// Status as EC2 names it: available, in-use.
	Status      string
	Description string
}

// VPCEndpoint is a VPC endpoint the fake EC2 knows.
type VPCEndpoint struct {
	ID, VPC, Service string
}

// ec2Network are the VPCs, network interfaces and VPC endpoints of the
// fake EC2: DescribeVpcs, DescribeNetworkInterfaces,
// DeleteNetworkInterface, DescribeVpcEndpoints, DeleteVpcEndpoints
// (filters: tag:<key>, vpc-id, status; every answer is one page).
type ec2Network struct {
	mu         sync.Mutex
	vpcs       map[string]VPC
	interfaces map[string]NetworkInterface
	endpoints  map[string]VPCEndpoint
}

func (n *ec2Network) put(f func(*ec2Network)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.vpcs == nil {
		n.vpcs, n.interfaces, n.endpoints = map[string]VPC{}, map[string]NetworkInterface{}, map[string]VPCEndpoint{}
	}
	f(n)
}

// AddVPC adds (or replaces) a VPC.
func (e *EC2) AddVPC(v VPC) { e.network.put(func(n *ec2Network) { n.vpcs[v.ID] = v }) }

// AddNetworkInterface adds (or replaces) a network interface.
func (e *EC2) AddNetworkInterface(i NetworkInterface) {
	e.network.put(func(n *ec2Network) { n.interfaces[i.ID] = i })
}

// AddVPCEndpoint adds (or replaces) a VPC endpoint.
func (e *EC2) AddVPCEndpoint(v VPCEndpoint) {
	e.network.put(func(n *ec2Network) { n.endpoints[v.ID] = v })
}

// NetworkResource reports whether a network interface or VPC endpoint id
// still exists.
func (e *EC2) NetworkResource(id string) bool {
	var ok bool
	e.network.put(func(n *ec2Network) {
		_, i := n.interfaces[id]
		_, v := n.endpoints[id]
		ok = i || v
	})
	return ok
}

type netAnswer struct {
	XMLName    xml.Name
	Xmlns      string    `xml:"xmlns,attr"`
	RequestID  string    `xml:"requestId"`
	VPCs       []vpcItem `xml:"vpcSet>item,omitempty"`
	Interfaces []struct {
		ID          string `xml:"networkInterfaceId"`
		VPC         string `xml:"vpcId"`
		Subnet      string `xml:"subnetId"`
		Status      string `xml:"status"`
		Description string `xml:"description"`
	} `xml:"networkInterfaceSet>item,omitempty"`
	Endpoints []struct {
		ID      string `xml:"vpcEndpointId"`
		VPC     string `xml:"vpcId"`
		Service string `xml:"serviceName"`
		State   string `xml:"state"`
	} `xml:"vpcEndpointSet>item,omitempty"`
	Unsuccessful []string `xml:"unsuccessful>item>resourceId,omitempty"`
	Return       string   `xml:"return,omitempty"`
}

type vpcItem struct {
	ID   string   `xml:"vpcId"`
	Tags []ec2Tag `xml:"tagSet>item"`
}

func (n *ec2Network) serve(w http.ResponseWriter, form url.Values) {
	n.put(func(*ec2Network) {})
	n.mu.Lock()
	defer n.mu.Unlock()
	action := form.Get("Action")
	f := filters(form)
	ans := netAnswer{XMLName: xml.Name{Local: action + "Response"}, Xmlns: ec2Namespace, RequestID: requestID()}
	inVPC := func(vpc string) bool { v, ok := f["vpc-id"]; return !ok || contains(v, vpc) }
	switch action {
	case "DescribeVpcs":
		for _, id := range sortedKeys(n.vpcs) {
			if v := n.vpcs[id]; matches(f, v.Tags, "") {
				ans.VPCs = append(ans.VPCs, vpcItem{ID: v.ID, Tags: tagSet(v.Tags)})
			}
		}
	case "DescribeNetworkInterfaces":
		for _, id := range sortedKeys(n.interfaces) {
			i := n.interfaces[id]
			if s, ok := f["status"]; (ok && !contains(s, i.Status)) || !inVPC(i.VPC) {
				continue
			}
			ans.Interfaces = append(ans.Interfaces, struct {
				ID          string `xml:"networkInterfaceId"`
				VPC         string `xml:"vpcId"`
				Subnet      string `xml:"subnetId"`
				Status      string `xml:"status"`
				Description string `xml:"description"`
			}{i.ID, i.VPC, i.Subnet, i.Status, i.Description})
		}
	case "DeleteNetworkInterface":
		i, ok := n.interfaces[form.Get("NetworkInterfaceId")]
		switch {
		case !ok:
			ec2Error(w, http.StatusBadRequest, "InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '"+form.Get("NetworkInterfaceId")+"' does not exist")
			return
		case i.Status != "available":
			ec2Error(w, http.StatusBadRequest, "InvalidNetworkInterface.InUse", "Network interface '"+i.ID+"' is currently in use.")
			return
		}
		delete(n.interfaces, i.ID)
		ans.Return = "true"
	case "DescribeVpcEndpoints":
		for _, id := range sortedKeys(n.endpoints) {
			if v := n.endpoints[id]; inVPC(v.VPC) {
				ans.Endpoints = append(ans.Endpoints, struct {
					ID      string `xml:"vpcEndpointId"`
					VPC     string `xml:"vpcId"`
					Service string `xml:"serviceName"`
					State   string `xml:"state"`
				}{v.ID, v.VPC, v.Service, "available"})
			}
		}
	case "DeleteVpcEndpoints":
		for _, id := range membersOf(form, "VpcEndpointId.") {
			if _, ok := n.endpoints[id]; !ok {
				ans.Unsuccessful = append(ans.Unsuccessful, id)
			}
			delete(n.endpoints, id)
		}
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	_ = xml.NewEncoder(w).Encode(ans)
}
