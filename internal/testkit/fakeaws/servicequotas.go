package fakeaws

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"
)

// OnDemandStandardVCPUs is the quota code of EC2's "Running On-Demand
// Standard (A, C, D, H, I, M, R, T, Z) instances", counted in vCPUs.
const OnDemandStandardVCPUs = "L-1216C47A"

// ServiceQuotas is a fake AWS Service Quotas speaking the JSON 1.1
// protocol: GetServiceQuota, answering the applied value of the quotas
// set with SetQuota (AWS answers NoSuchResourceException for a quota
// never raised from its default, which GetAWSDefaultServiceQuota then
// holds; the fake keeps one value per quota and answers it on both).
type ServiceQuotas struct {
	iam *IAM

	mu     sync.Mutex
	quotas map[string]float64 // service code + "/" + quota code
	calls  int
}

// NewServiceQuotas returns a Service Quotas whose EC2 on-demand standard
// vCPU quota is 32, a new account's usual figure.
func NewServiceQuotas(iam *IAM) *ServiceQuotas {
	return &ServiceQuotas{iam: iam, quotas: map[string]float64{"ec2/" + OnDemandStandardVCPUs: 32}}
}

// SetQuota sets a quota's value.
func (s *ServiceQuotas) SetQuota(serviceCode, quotaCode string, value float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quotas[serviceCode+"/"+quotaCode] = value
}

// Calls returns how many GetServiceQuota calls were answered.
func (s *ServiceQuotas) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// ServeHTTP answers one JSON 1.1 request.
func (s *ServiceQuotas) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPost {
		jsonError(w, http.StatusBadRequest, "SerializationException", "requests are POSTs with a JSON body")
		return
	}
	if _, _, aerr := s.iam.verifyHeader(r, body, "servicequotas", time.Now()); aerr != nil {
		jsonError(w, http.StatusBadRequest, ssmAuthCode(aerr.kind), aerr.msg)
		return
	}
	var action string
	switch r.Header.Get("X-Amz-Target") {
	case "ServiceQuotasV20190624.GetServiceQuota":
		action = "servicequotas:GetServiceQuota"
	case "ServiceQuotasV20190624.GetAWSDefaultServiceQuota":
		action = "servicequotas:GetAWSDefaultServiceQuota"
	default:
		jsonError(w, http.StatusBadRequest, "UnknownOperationException", "")
		return
	}
	if s.iam.denied(action) {
		jsonError(w, http.StatusBadRequest, "AccessDeniedException", "User is not authorized to perform: "+action)
		return
	}
	var in struct{ ServiceCode, QuotaCode string }
	if err := json.Unmarshal(body, &in); err != nil || in.ServiceCode == "" || in.QuotaCode == "" {
		jsonError(w, http.StatusBadRequest, "IllegalArgumentException", "ServiceCode and QuotaCode are required")
		return
	}
	s.mu.Lock()
	s.calls++
	v, ok := s.quotas[in.ServiceCode+"/"+in.QuotaCode]
	s.mu.Unlock()
	if !ok {
		jsonError(w, http.StatusBadRequest, "NoSuchResourceException", "The request failed because the specified resource does not exist.")
		return
	}
	writeJSON(w, map[string]any{"Quota": map[string]any{
		"ServiceCode": in.ServiceCode, "QuotaCode": in.QuotaCode, "Value": v, "Unit": "None", "Adjustable": true,
		"QuotaName": "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
	}})
}
