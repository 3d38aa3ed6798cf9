package awsapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"
)

// The describe calls Validate makes (ec2:DescribeInstanceTypes,
// eks:DescribeClusterVersions) are sent with the SDK's SigV4 signer rather
// than its service clients: the EC2 client alone is one of the largest Go
// modules there is, for one read-only call.

// endpoint is the base URL of service in cfg's region: the service's
// AWS_ENDPOINT_URL_<SERVICE>, else AWS_ENDPOINT_URL (cfg.BaseEndpoint),
// else AWS's own.
func endpoint(cfg aws.Config, service string) string {
	return endpointOf(cfg, strings.ToUpper(service), service)
}

// endpointOf is endpoint for a service whose variable (the SDK's service
// ID, e.g. ELASTIC_LOAD_BALANCING_V2) differs from its host name.
func endpointOf(cfg aws.Config, envID, service string) string {
	if u := os.Getenv("AWS_ENDPOINT_URL_" + envID); u != "" {
		return strings.TrimSuffix(u, "/")
	}
	if cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != "" {
		return strings.TrimSuffix(*cfg.BaseEndpoint, "/")
	}
	suffix := "amazonaws.com"
	if strings.HasPrefix(cfg.Region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://" + service + "." + cfg.Region + "." + suffix
}

// send signs and sends one request and returns the answer's body; an AWS
// error answer becomes a smithy.APIError with AWS's code, so classify
// treats it as it treats the SDK's.
func send(ctx context.Context, cfg aws.Config, service string, req *http.Request, body []byte, errCode func(*http.Response, []byte) (string, string)) ([]byte, error) {
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), service, cfg.Region, time.Now()); err != nil {
		return nil, fmt.Errorf("sign %s request: %w", service, err)
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, &transportError{err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, &transportError{err}
	}
	if resp.StatusCode >= 500 {
		return nil, &transportError{fmt.Errorf("%s answered %s", service, resp.Status)}
	}
	if resp.StatusCode >= 300 {
		code, msg := errCode(resp, data)
		return nil, &smithy.GenericAPIError{Code: code, Message: msg}
	}
	return data, nil
}

// transportError is a failure to reach AWS or a server error: retryable.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// queryError reads a query-protocol error body: EC2's
// <Response><Errors><Error> or the other services' <ErrorResponse><Error>.
func queryError(resp *http.Response, body []byte) (string, string) {
	type apiError struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	var e struct {
		Errors []apiError `xml:"Errors>Error"`
		Error  []apiError `xml:"Error"`
	}
	if xml.Unmarshal(body, &e) != nil || len(e.Errors)+len(e.Error) == 0 {
		return resp.Status, strings.TrimSpace(string(body))
	}
	first := append(e.Errors, e.Error...)[0]
	return first.Code, first.Message
}

// jsonError reads the error of an AWS JSON protocol (REST-JSON, as EKS
// speaks, or JSON 1.1, as SSM does): the code in X-Amzn-Errortype or the
// body's __type, either possibly qualified ("com.amazonaws.ssm#Code",
// "Code:http://..."), and the message in message or Message.
func jsonError(resp *http.Response, body []byte) (string, string) {
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Upper   string `json:"Message"`
	}
	_ = json.Unmarshal(body, &e)
	code := resp.Header.Get("X-Amzn-Errortype")
	if code == "" {
		code = e.Type
	}
	code, _, _ = strings.Cut(code, ":")
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	if code == "" {
		code = resp.Status
	}
	if e.Message == "" {
		e.Message = e.Upper
	}
	return code, e.Message
}

func newRequest(ctx context.Context, method, url string, body []byte) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
}
