// Command rawgrpc is the baseline of the plugin-call benchmarks: a plain
// gRPC server (the standard health service) in its own process, on a unix
// socket, with mutual TLS configured as go-plugin configures a plugin's
// server. The benchmark passes the socket path and PEM certificates in the
// environment; the server prints "ready" once it listens and exits when its
// standard input closes.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rawgrpc:", err)
		os.Exit(1)
	}
}

func run() error {
	cert, err := tls.X509KeyPair([]byte(os.Getenv("RAWGRPC_SERVER_CERT")), []byte(os.Getenv("RAWGRPC_SERVER_KEY")))
	if err != nil {
		return fmt.Errorf("server certificate: %w", err)
	}
	clients := x509.NewCertPool()
	if !clients.AppendCertsFromPEM([]byte(os.Getenv("RAWGRPC_CLIENT_CERT"))) {
		return fmt.Errorf("RAWGRPC_CLIENT_CERT holds no certificate")
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert,
		ClientCAs: clients, RootCAs: clients, MinVersion: tls.VersionTLS12, ServerName: "localhost"}
	lis, err := net.Listen("unix", os.Getenv("RAWGRPC_SOCKET"))
	if err != nil {
		return err
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(cfg)))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		srv.Stop()
	}()
	fmt.Println("ready")
	return srv.Serve(lis)
}
