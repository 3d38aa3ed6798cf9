// Package fakeaws runs local HTTP endpoints that speak AWS's wire protocols,
// for tests: SSM (JSON 1.1), STS (query protocol, header-signed POSTs and
// presigned GETs), EC2 (EC2 query protocol: DescribeInstanceTypes and
// their offerings, volumes, security groups, VPCs, network interfaces,
// VPC endpoints), Elastic Load Balancing v2 and Classic (query protocol,
// one endpoint told apart by Version), EKS (REST-JSON: DescribeClusterVersions,
// DescribeAddonVersions, DescribeAddonConfiguration, DescribeCluster),
// Service Quotas (JSON 1.1: GetServiceQuota) and Auto Scaling (query
// protocol: DescribeAutoScalingGroups, TerminateInstanceInAutoScalingGroup).
// The real aws-sdk-go-v2 clients talk to them through BaseEndpoint or
// AWS_ENDPOINT_URL_<SERVICE>. Every request must carry a SigV4 signature that the fake recomputes with the secret of a key it
// issued, so a test proves that credentials flow, not just that a request
// arrived. Errors have AWS's codes, HTTP statuses and body shapes.
//
// An Interceptor (tlsproxy.go) lets a program that insists on a real AWS
// hostname over HTTPS, such as aws-iam-authenticator's token verifier,
// reach these fakes through HTTPS_PROXY.
package fakeaws

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Principal is an identity the fake endpoints accept, with the key it signs
// requests with.
type Principal struct {
	AccessKeyID     string
	SecretAccessKey string
	// SessionToken is set for temporary credentials (from AssumeRole).
	SessionToken string
	// Account is the 12-digit account ID.
	Account string
	// ARN is what GetCallerIdentity answers, e.g.
	// arn:aws:iam::123456789012:user/alice.
	ARN string
	// UserID is what GetCallerIdentity answers as UserId.
	UserID string
	// Expires is when temporary credentials stop working; zero for
	// long-term keys.
	Expires time.Time
}

// Role is an IAM role that AssumeRole can hand out credentials for.
type Role struct {
	ARN string
	// ExternalID, when set, must be sent by AssumeRole callers.
	ExternalID string
	// MaxSession is the longest session AssumeRole grants (IAM's
	// MaxSessionDuration); zero means AWS's default of an hour.
	MaxSession time.Duration
	account    string
	name       string
	id         string
}

// IAM is the set of keys and roles the fake endpoints share: keys issued by
// the fake STS's AssumeRole work on the fake SSM too.
type IAM struct {
	mu    sync.Mutex
	keys  map[string]Principal
	roles map[string]Role
	deny  map[string]bool
}

// NewIAM returns an IAM with no keys and no roles.
func NewIAM() *IAM {
	return &IAM{keys: map[string]Principal{}, roles: map[string]Role{}, deny: map[string]bool{}}
}

// Deny makes every key's calls of action (e.g.
// servicequotas:GetServiceQuota) fail with the service's access-denied
// error, as a policy without it would. EC2, EKS, Service Quotas and
// Auto Scaling honour it.
func (i *IAM) Deny(action string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.deny[action] = true
}

func (i *IAM) denied(action string) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.deny[action]
}

// AddUser creates an IAM user with a fresh long-term access key.
func (i *IAM) AddUser(account, name string) Principal {
	p := Principal{
		AccessKeyID:     "AKIA" + randomString(16, upperDigits),
		SecretAccessKey: randomString(40, secretChars),
		Account:         account,
		ARN:             fmt.Sprintf("arn:aws:iam::%s:user/%s", account, name),
		UserID:          "AIDA" + randomString(17, upperDigits),
	}
	i.add(p)
	return p
}

// AddRole creates a role that AssumeRole hands out credentials for; when
// externalID is not empty, callers must send it. It returns the role's ARN.
func (i *IAM) AddRole(account, name, externalID string) string {
	r := Role{
		ARN:        fmt.Sprintf("arn:aws:iam::%s:role/%s", account, name),
		ExternalID: externalID,
		account:    account,
		name:       name,
		id:         "AROA" + randomString(17, upperDigits),
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.roles[r.ARN] = r
	return r.ARN
}

// SetMaxSession sets the MaxSessionDuration of the role arn.
func (i *IAM) SetMaxSession(arn string, d time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	r := i.roles[arn]
	r.MaxSession = d
	i.roles[arn] = r
}

// Key returns the principal of an access key the fakes issued.
func (i *IAM) Key(accessKeyID string) (Principal, bool) { return i.key(accessKeyID) }

// Session issues temporary credentials of the role arn directly, as if
// its holder had assumed it: e.g. the instance role or web identity a
// program finds in its environment.
func (i *IAM) Session(arn, session string, lifetime time.Duration) Principal {
	r, ok := i.role(arn)
	if !ok {
		panic("fakeaws: no role " + arn)
	}
	return i.assume(r, session, lifetime)
}

// Expire makes the temporary credentials of accessKeyID expire now.
func (i *IAM) Expire(accessKeyID string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if p, ok := i.keys[accessKeyID]; ok {
		p.Expires = time.Now().Add(-time.Second)
		i.keys[accessKeyID] = p
	}
}

func (i *IAM) add(p Principal) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keys[p.AccessKeyID] = p
}

func (i *IAM) key(accessKeyID string) (Principal, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	p, ok := i.keys[accessKeyID]
	return p, ok
}

func (i *IAM) role(arn string) (Role, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	r, ok := i.roles[arn]
	return r, ok
}

// assume issues temporary credentials for role r.
func (i *IAM) assume(r Role, session string, lifetime time.Duration) Principal {
	p := Principal{
		AccessKeyID:     "ASIA" + randomString(16, upperDigits),
		SecretAccessKey: randomString(40, secretChars),
		SessionToken:    "IQoJb3JpZ2luX2Vj" + randomString(300, secretChars),
		Account:         r.account,
		ARN:             fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", r.account, r.name, session),
		UserID:          r.id + ":" + session,
		Expires:         time.Now().Add(lifetime).Truncate(time.Second),
	}
	i.add(p)
	return p
}

// Server is a fake SSM, STS, EC2, EKS, ELBv2, Service Quotas and Auto
// Scaling on loopback HTTP servers, sharing one IAM.
type Server struct {
	IAM *IAM
	SSM *SSM
	STS *STS
	EC2 *EC2
	EKS *EKS
	ELB *ELBv2
	SQ  *ServiceQuotas
	ASG *AutoScaling
	// SSMURL, STSURL, EC2URL and EKSURL are the endpoints, e.g.
	// http://127.0.0.1:41234.
	SSMURL, STSURL, EC2URL, EKSURL string
	// ELBURL is Elastic Load Balancing's endpoint (v2 and Classic, as
	// AWS's one host for both), SQURL Service Quotas', ASGURL Auto
	// Scaling's.
	ELBURL, SQURL, ASGURL string
}

// Start runs the fakes until the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	iam := NewIAM()
	s := &Server{IAM: iam, SSM: NewSSM(iam), STS: NewSTS(iam), EC2: NewEC2(iam), EKS: NewEKS(iam), ELB: NewELBv2(iam),
		SQ: NewServiceQuotas(iam), ASG: NewAutoScaling(iam)}
	for _, e := range []struct {
		h   http.Handler
		url *string
	}{{s.SSM, &s.SSMURL}, {s.STS, &s.STSURL}, {s.EC2, &s.EC2URL}, {s.EKS, &s.EKSURL}, {s.ELB, &s.ELBURL}, {s.SQ, &s.SQURL}, {s.ASG, &s.ASGURL}} {
		srv := httptest.NewServer(e.h)
		tb.Cleanup(srv.Close)
		*e.url = srv.URL
	}
	return s
}

// Env returns the environment variables that point aws-sdk-go-v2 (through
// config.LoadDefaultConfig) at the fakes.
func (s *Server) Env() map[string]string {
	return map[string]string{
		"AWS_ENDPOINT_URL_SSM": s.SSMURL,
		"AWS_ENDPOINT_URL_STS": s.STSURL,
		"AWS_ENDPOINT_URL_EC2": s.EC2URL,
		"AWS_ENDPOINT_URL_EKS": s.EKSURL,
		// The SDK's name for Elastic Load Balancing v2's variable.
		"AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2": s.ELBURL,
		"AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING":    s.ELBURL,
		"AWS_ENDPOINT_URL_SERVICE_QUOTAS":            s.SQURL,
		"AWS_ENDPOINT_URL_AUTO_SCALING":              s.ASGURL,
	}
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	secretChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
)

// randomString returns n characters drawn from alphabet, whose length must
// divide 256 so every character is equally likely.
func randomString(n int, alphabet string) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	for k := range b {
		b[k] = alphabet[int(b[k])%len(alphabet)]
	}
	return string(b)
}

// requestID returns a fresh request ID in AWS's UUID shape.
func requestID() string {
	b := []byte(randomString(32, "0123456789abcdef"))
	return fmt.Sprintf("%s-%s-%s-%s-%s", b[0:8], b[8:12], b[12:16], b[16:20], b[20:32])
}
