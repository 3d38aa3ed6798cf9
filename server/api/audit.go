package api

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// auditLimits bound one page of GET /audit.
const (
	defaultAuditPage = 50
	maxAuditPage     = 500
)

// audit records every mutating request, whatever its result: who (token
// or user), the method and route pattern, the ID in the path, the status
// and the request ID. Never a body, header or query string.
func (s *server) audit(c *fiber.Ctx) error {
	err := c.Next()
	if !mutating(c.Method()) && !auditedReads[c.Method()+" "+routePattern(c)] {
		return err
	}
	status := c.Response().StatusCode()
	if err != nil {
		status = toProblem(err).Status
	}
	p := who(c)
	ev := &store.AuditEvent{Actor: p.Name, ActorID: p.TokenID, Method: c.Method(), Route: routePattern(c),
		Target: c.Params("id"), Status: status, RequestID: requestID(c)}
	if aerr := s.store.AddAuditEvent(c.UserContext(), ev); aerr != nil {
		s.log.Warn("audit event not recorded", "request_id", ev.RequestID, "reason", aerr)
	}
	return err
}

// auditedReads are the reads recorded like changes: they hand out
// credentials.
var auditedReads = map[string]bool{"GET /api/v1/clusters/:id/kubeconfig": true}

type auditPage struct {
	Items []store.AuditEvent `json:"items"`
	// Next is the value of ?before= for the next (older) page; "" on the
	// last one.
	Next string `json:"next"`
}

// listAudit is GET /audit?actor=&target=&limit=&before=.
func (s *server) listAudit(c *fiber.Ctx) error {
	f := store.AuditFilter{Actor: c.Query("actor"), Target: c.Query("target"), Limit: defaultAuditPage}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxAuditPage {
			return invalid(FieldProblem{"limit", "must be a number from 1 to " + strconv.Itoa(maxAuditPage)})
		}
		f.Limit = n
	}
	if before := c.Query("before"); before != "" {
		e, err := s.store.GetAuditEvent(c.UserContext(), before)
		if err != nil {
			return invalid(FieldProblem{"before", "must be the next value of a previous page"})
		}
		f.Before = e
	}
	items, err := s.store.ListAuditEvents(c.UserContext(), f)
	if err != nil {
		return err
	}
	page := auditPage{Items: items}
	if page.Items == nil {
		page.Items = []store.AuditEvent{}
	}
	if len(items) == f.Limit {
		page.Next = items[len(items)-1].ID
	}
	return c.JSON(page)
}
