package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
)

type healthStatus struct {
	Status string `json:"status"`
}

func (s *server) healthz(c *fiber.Ctx) error {
	return c.JSON(healthStatus{Status: "ok"})
}

func (s *server) readyz(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	if err := s.store.Ready(ctx); err != nil {
		s.log.Warn("not ready", "request_id", requestID(c), "reason", err)
		return errDatabaseDown()
	}
	return c.JSON(healthStatus{Status: "ready"})
}
