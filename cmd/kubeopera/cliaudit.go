package main

import (
	"context"
	"fmt"
	"os/user"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// auditCLI records in the audit log a change a command made to the
// database directly, as the API records its own: the actor is the
// operating-system user as "cli:NAME", the route the command's path
// ("kubeopera tokens create"), the target what it changed. status says
// how it ended, in HTTP's terms (201 created, 200 changed).
func auditCLI(ctx context.Context, cmd *cobra.Command, st *store.Store, target string, status int) error {
	ev := cliAuditEvent(cmd, target, status)
	if err := st.AddAuditEvent(ctx, ev); err != nil {
		return fmt.Errorf("the change is made but not in the audit log: %w", err)
	}
	return nil
}

// cliAuditEvent is the audit event of a change a command makes on the
// database directly; a store method that takes it stores it in the
// change's transaction.
func cliAuditEvent(cmd *cobra.Command, target string, status int) *store.AuditEvent {
	actor := "cli"
	if u, err := user.Current(); err == nil {
		actor = "cli:" + u.Username
	}
	return &store.AuditEvent{Actor: actor, Method: "CLI", Route: cmd.CommandPath(), Target: target, Status: status,
		RequestID: uuid.NewString()}
}
