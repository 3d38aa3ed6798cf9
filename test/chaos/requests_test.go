package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// reqMu guards the answers written into requests while a round's kill
// reads their cluster IDs.
var reqMu sync.Mutex

// apiClient gives every request a deadline: a killed server must not hang
// the round.
var apiClient = &http.Client{Timeout: time.Minute}

// post sends body to path with the admin token and returns the status
// code and the answer's body.
func (p *platform) post(ctx context.Context, path string, body any) (int, []byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url+path, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := apiClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// provision asks for a local cluster with one simulated node.
func (p *platform) provision(ctx context.Context, r *request) {
	code, body, err := p.post(ctx, "/api/v1/clusters/provision",
		map[string]any{"name": r.name, "provider": "local", "inputs": map[string]string{"nodeCount": "1"}})
	var c struct {
		ID string `json:"id"`
	}
	acked := code == http.StatusAccepted && json.Unmarshal(body, &c) == nil
	reqMu.Lock()
	defer reqMu.Unlock()
	r.answer = answer(code, body, err)
	if acked {
		r.acked, r.id = true, c.ID
	}
}

// teardown asks for r.id to be torn down, confirming its name.
func (p *platform) teardown(ctx context.Context, r *request) {
	code, body, err := p.post(ctx, "/api/v1/clusters/"+r.id+"/teardown", map[string]string{"confirmName": r.name})
	reqMu.Lock()
	defer reqMu.Unlock()
	r.answer = answer(code, body, err)
	r.acked = code >= 200 && code < 300
}

func answer(code int, body []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	if len(body) > 200 {
		body = body[:200]
	}
	return fmt.Sprintf("%d %s", code, body)
}
