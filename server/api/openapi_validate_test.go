package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Every answer any test of this package gets through env.send is checked
// against the served document with kin-openapi's response validation: its
// status must be one the operation documents (not just "default"), its
// content type one the status documents, its body valid against that
// schema, enums included. TestMain then requires every documented status
// of every operation to have been seen at least once (see
// checkStatusCoverage), so the document lists no status the server never
// answers, and the server answers none it does not list.

var kin struct {
	once   sync.Once
	router routers.Router
	err    error

	mu   sync.Mutex
	seen map[string]bool // "operationId status"
}

func kinRouter() (routers.Router, error) {
	kin.once.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(OpenAPIDocument())
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err != nil {
			kin.err = fmt.Errorf("the document is not valid OpenAPI: %w", err)
			return
		}
		kin.router, kin.err = gorillamux.NewRouter(doc)
	})
	return kin.router, kin.err
}

// validateAnswer checks one answer; a request the document has no
// operation for (a path no route serves, the dashboard's files) is not
// checked here: the drift tests hold routes and document together.
func validateAnswer(t testing.TB, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	router, err := kinRouter()
	if err != nil {
		t.Fatal(err)
	}
	r := req.Clone(context.Background())
	r.Body = http.NoBody
	route, params, err := router.FindRoute(r)
	if err != nil {
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s answered %d, which does not match the document: %v\nbody: %.600s", req.Method, req.URL.Path,
			resp.StatusCode, err, body)
		return
	}
	kin.mu.Lock()
	defer kin.mu.Unlock()
	if kin.seen == nil {
		kin.seen = map[string]bool{}
	}
	kin.seen[fmt.Sprintf("%s %d", route.Operation.OperationID, resp.StatusCode)] = true
}

// unproduced are the documented statuses no test here makes the server
// answer, each with why it is documented anyway. It must stay short: an
// entry no longer needed fails the check too.
var unproduced = map[string]string{}

// checkStatusCoverage lists every documented status of every operation
// that no test saw, and every unproduced entry that was seen after all.
func checkStatusCoverage() []string {
	var missing []string
	for _, r := range routes {
		for _, status := range statusesOf(r) {
			if beforeAnyRoute(r, status) {
				continue
			}
			key := fmt.Sprintf("%s %d", opDocs[routeKey(r)].id, status)
			_, excused := unproduced[key]
			switch seen := kin.seen[key]; {
			case !seen && !excused:
				missing = append(missing, key+" was never answered by a test (produce it, or list it in unproduced with why)")
			case seen && excused:
				missing = append(missing, key+" is listed in unproduced but a test produced it: remove the entry")
			}
		}
	}
	sort.Strings(missing)
	return missing
}

// beforeAnyRoute reports whether status is one of serverAnswers that no
// route's own code answers, so that a test of it on one route proves it
// for all (TestServerRefusalsAreCountedAndCarrySecurityHeaders): 413 and
// 431 (the HTTP server's), 500 (unexpected by definition), and 400 on a
// route without a body, which only a malformed request gets.
func beforeAnyRoute(r route, status int) bool {
	switch status {
	case http.StatusRequestEntityTooLarge, http.StatusRequestHeaderFieldsTooLarge, http.StatusInternalServerError:
		return true
	case http.StatusBadRequest:
		return r.request == "" && !slices.Contains(opDocs[routeKey(r)].errors, http.StatusBadRequest)
	}
	return false
}

// The document passes kin-openapi's own validation, and every route has
// its operationId (unique) and a declared tag.
func TestOpenAPIOperationsAreComplete(t *testing.T) {
	if _, err := kinRouter(); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, r := range routes {
		d, ok := opDocs[routeKey(r)]
		if !ok {
			t.Errorf("%s has no entry in opDocs (openapi_ops.go): give it an operationId and a tag", routeKey(r))
			continue
		}
		if prev, dup := ids[d.id]; dup || d.id == "" {
			t.Errorf("%s: operationId %q is empty or also %s's", routeKey(r), d.id, prev)
		}
		ids[d.id] = routeKey(r)
		if !slices.ContainsFunc(tags, func(x struct{ name, description string }) bool { return x.name == d.tag }) {
			t.Errorf("%s: tag %q is not declared in tags", routeKey(r), d.tag)
		}
	}
	for key := range opDocs {
		if !slices.ContainsFunc(routes, func(r route) bool { return routeKey(r) == key }) {
			t.Errorf("opDocs documents %s, which is no route", key)
		}
	}
	for key := range unproduced {
		id, _, _ := strings.Cut(key, " ")
		if _, ok := ids[id]; !ok {
			t.Errorf("unproduced names %s, which is no operation", key)
		}
	}
}
