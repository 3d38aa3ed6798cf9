package api

import (
	"context"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// auditLimits bound one page of GET /audit.
const (
	defaultAuditPage = 50
	maxAuditPage     = 500
)

// Locals a handler sets for its audit event.
const (
	// auditActorKey names who acted on a route without a principal: the
	// name a sign-in tried, the administrator setup created.
	auditActorKey = "audit-actor"
	// anonymousActor is the actor of a failed sign-in on a real account:
	// whoever sent it is not known to be anyone.
	anonymousActor = "anonymous"
	// auditTargetKey is the ID a create made, which the path lacks.
	auditTargetKey = "audit-target"
	// auditedKey marks a request whose handler stored its event in the
	// same transaction as its change.
	auditedKey = "audited"
)

// audit records every mutating request, whatever its result: who (token
// or user), the method and route pattern, the ID in the path or the one a
// create made, the status and the server's request ID. Never a body,
// header or query string. A request nobody is known to have made (no
// principal, no name tried) is only counted: anyone can send millions.
func (s *server) audit(c *fiber.Ctx) error {
	err := c.Next()
	key := c.Method() + " " + routePattern(c)
	if (!mutating(c.Method()) && !auditedReads[key]) || unauditedPosts[key] || c.Locals(auditedKey) != nil {
		return err
	}
	status := c.Response().StatusCode()
	if err != nil {
		status = toProblem(err).Status
	}
	ev := s.auditEvent(c, status)
	if store.Unavailable(err) {
		// The database refused the change; the event would wait for it
		// as long again and fail the same way: the log keeps it.
		s.log.Warn("audit event not recorded: the database is unavailable", "request_id", ev.RequestID,
			"actor", ev.Actor, "method", ev.Method, "route", ev.Route, "status", status)
		return err
	}
	if ev.Actor == "" && ev.ActorID == "" {
		s.countNoise(c.UserContext(), c.Method(), status)
		return err
	}
	if aerr := s.store.AddAuditEvent(c.UserContext(), ev); aerr != nil {
		s.log.Warn("audit event not recorded", "request_id", ev.RequestID, "reason", aerr)
	}
	return err
}

// auditedReads are the reads recorded like changes: they hand out
// credentials.
var auditedReads = map[string]bool{"GET /api/v1/clusters/:id/kubeconfig": true}

// unauditedPosts are POSTs that change nothing: a question with a body.
// The wizard asks for an estimate as its form changes; a row each time
// would bury the changes in the log.
var unauditedPosts = map[string]bool{"POST /api/v1/providers/:name/estimate": true}

// auditEvent is the record of the request c answered with status.
func (s *server) auditEvent(c *fiber.Ctx, status int) *store.AuditEvent {
	p := who(c)
	actor := p.Name
	if actor == "" {
		actor, _ = c.Locals(auditActorKey).(string)
	}
	target := c.Params("id")
	if t, ok := c.Locals(auditTargetKey).(string); ok {
		target = t
	}
	return &store.AuditEvent{Actor: actor, ActorID: p.TokenID, Method: c.Method(), Route: routePattern(c),
		Target: target, Status: status, RequestID: requestID(c)}
}

// auditedWith hands a handler the event of its successful change, to be
// stored in the change's transaction, and marks the request as recorded.
func (s *server) auditedWith(c *fiber.Ctx, status int) *store.AuditEvent {
	c.Locals(auditedKey, true)
	return s.auditEvent(c, status)
}

// changeAudited runs change with the event of its success, to be stored
// in the change's transaction; when change fails, nothing was stored and
// the middleware records the failure.
func (s *server) changeAudited(c *fiber.Ctx, status int, change func(*store.AuditEvent) error) error {
	if err := change(s.auditedWith(c, status)); err != nil {
		c.Locals(auditedKey, nil)
		return err
	}
	return nil
}

// countNoise counts a request nobody signed.
func (s *server) countNoise(ctx context.Context, method string, status int) {
	if err := s.store.CountAuditNoise(ctx, time.Now(), method, status); err != nil {
		s.log.Warn("unsigned request not counted", "reason", err)
	}
}

type auditPage struct {
	Items []store.AuditEvent `json:"items"`
	// Next is the value of ?before= for the next (older) page; "" on the
	// last one.
	Next string `json:"next"`
}

// listAudit is GET /audit?actor=&target=&since=&until=&limit=&before=.
func (s *server) listAudit(c *fiber.Ctx) error {
	f := store.AuditFilter{Actor: c.Query("actor"), Target: c.Query("target"), Limit: defaultAuditPage}
	for name, at := range map[string]*time.Time{"since": &f.Since, "until": &f.Until} {
		if v := c.Query(name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return invalid(FieldProblem{name, "must be a time in RFC 3339 form, such as 2026-12-07T18:00:00Z"})
			}
			*at = t
		}
	}
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
