package fakeaws

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
)

// DefaultZoneIDs are the availability zone IDs where a new fake EC2 offers
// every instance type it knows.
var DefaultZoneIDs = []string{"eun1-az1", "eun1-az2", "eun1-az3"}

// SetOfferings makes EC2 offer instanceType in exactly the zones zoneIDs
// (none: not at all).
func (e *EC2) SetOfferings(instanceType string, zoneIDs ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.offerings[instanceType] = slices.Clone(zoneIDs)
}

type offeringItem struct {
	InstanceType string `xml:"instanceType"`
	LocationType string `xml:"locationType"`
	Location     string `xml:"location"`
}

type describeOfferingsResponse struct {
	XMLName   xml.Name       `xml:"DescribeInstanceTypeOfferingsResponse"`
	Xmlns     string         `xml:"xmlns,attr"`
	RequestID string         `xml:"requestId"`
	Items     []offeringItem `xml:"instanceTypeOfferingSet>item"`
}

// describeOfferings answers DescribeInstanceTypeOfferings for
// LocationType availability-zone-id, filtered by instance-type (the only
// filter the fake knows).
func (e *EC2) describeOfferings(w http.ResponseWriter, form url.Values) {
	if lt := form.Get("LocationType"); lt != "availability-zone-id" {
		ec2Error(w, http.StatusBadRequest, "InvalidParameterValue", "the fake answers LocationType availability-zone-id only, not "+lt)
		return
	}
	var types []string
	for i := 1; form.Get("Filter."+strconv.Itoa(i)+".Name") != ""; i++ {
		if form.Get("Filter."+strconv.Itoa(i)+".Name") != "instance-type" {
			ec2Error(w, http.StatusBadRequest, "InvalidParameterValue", "the fake filters by instance-type only")
			return
		}
		for j := 1; form.Get("Filter."+strconv.Itoa(i)+".Value."+strconv.Itoa(j)) != ""; j++ {
			types = append(types, form.Get("Filter."+strconv.Itoa(i)+".Value."+strconv.Itoa(j)))
		}
	}
	e.mu.Lock()
	var items []offeringItem
	for t, zones := range e.offerings {
		if len(types) > 0 && !slices.Contains(types, t) {
			continue
		}
		for _, z := range zones {
			items = append(items, offeringItem{InstanceType: t, LocationType: "availability-zone-id", Location: z})
		}
	}
	e.mu.Unlock()
	sort.Slice(items, func(i, j int) bool {
		return items[i].InstanceType+items[i].Location < items[j].InstanceType+items[j].Location
	})
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	_ = xml.NewEncoder(w).Encode(describeOfferingsResponse{Xmlns: ec2Namespace, RequestID: requestID(), Items: items})
}
