// Package federation builds the multi-cluster overview: it asks every
// registered cluster for its state at once, each under its own timeout, and
// adds up readiness, usage and an estimated monthly cost.
//
// A cluster that is slow or unreachable never holds up the others: Build
// stops waiting for it at its deadline and reports it as unreachable.
//
// Cost is an estimate from on-demand instance prices (see Pricing); nodes
// whose instance type is missing or unknown are counted, never guessed.
package federation
