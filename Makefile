# KubeOpera. `make build` to build, `make test` to test everything.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
TOOLS := $(BIN)/tools
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
PLUGINS := aws-vanilla aws-eks gcp-stub azure-stub local
# The image ships the product plugins; local needs the sandbox binaries.
IMAGE_PLUGINS := $(filter-out local,$(PLUGINS))
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
# The SDK, its Terraform runner and its local cloud are their own modules
# (so a plugin that uses only the SDK requires no Kubernetes module):
# `./...` at the root skips them, so vet, tidy and test visit them too.
SDK_MODULES := sdk sdk/terraform sdk/localcloud

.PHONY: check-tracked chart-sync all build plugins cli tools testbin test-aws test-fleet test-chaos test-node generate check-generated vet check-format lint lint-openapi test bench run dev image clean web web-types test-web bench-web testoidc

all: build

# web first: the CLI embeds the dashboard build (server/web/dist).
build: web cli plugins

cli:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/kubeopera ./cmd/kubeopera

plugins:
	@mkdir -p $(BIN)/plugins
	@for p in $(PLUGINS); do \
		$(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(BIN)/plugins/kubeopera-provider-$$p ./plugins/$$p || exit 1; \
	done

# Code generators: protoc plugins pinned in hack/tools/go.mod, buf (which
# compiles the .proto itself: no machine's protoc is involved) in
# hack/buf/go.mod, controller-gen in hack/controller-gen/go.mod (own
# modules, so their libraries never move each other's versions).
tools: $(TOOLS)/protoc-gen-go $(TOOLS)/protoc-gen-go-grpc $(TOOLS)/buf $(TOOLS)/controller-gen $(TOOLS)/oapi-codegen

# oapi-codegen (hack/oapi-codegen/go.mod) generates the CLI's API client
# from the server's OpenAPI document.
$(TOOLS)/oapi-codegen: hack/oapi-codegen/go.mod
	cd hack/oapi-codegen && GOBIN=$(TOOLS) $(GO) install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen

$(TOOLS)/buf: hack/buf/go.mod
	cd hack/buf && GOBIN=$(TOOLS) $(GO) install github.com/bufbuild/buf/cmd/buf

$(TOOLS)/controller-gen: hack/controller-gen/go.mod
	cd hack/controller-gen && GOBIN=$(TOOLS) $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen

$(TOOLS)/protoc-gen-go $(TOOLS)/protoc-gen-go-grpc: hack/tools/go.mod
	cd hack/tools && GOBIN=$(TOOLS) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go google.golang.org/grpc/cmd/protoc-gen-go-grpc

generate: tools
	$(TOOLS)/controller-gen object paths=./host/api/...
	$(TOOLS)/controller-gen crd paths=./host/api/... output:crd:dir=config/crd/bases
	$(TOOLS)/controller-gen rbac:roleName=kubeopera-controller paths=./host/controller/... output:rbac:dir=config/rbac
	$(TOOLS)/buf generate
	$(MAKE) web-types
	$(TOOLS)/oapi-codegen -config internal/apiclient/oapi-codegen.yaml web/openapi.json
	$(MAKE) chart-sync

# The Helm chart's CRD and RBAC are copies of config/crd and the RBAC of
# config/rbac and config/server (one source for both installs); the chart's
# test fails when they drift.
CHART := charts/kubeopera
chart-sync:
	cp config/crd/bases/kubeopera.io_hostclusters.yaml $(CHART)/crds/
	cp config/rbac/role.yaml $(CHART)/files/rbac/controller-role.yaml
	cp config/rbac/role_binding.yaml $(CHART)/files/rbac/controller-role-binding.yaml
	cp config/rbac/role_binding_jobs.yaml $(CHART)/files/rbac/controller-role-binding-jobs.yaml
	cp config/server/rbac.yaml $(CHART)/files/rbac/server-rbac.yaml

# CI: regenerate and fail when the committed code differs.
GENERATED := sdk/internal/proto host/api config/crd config/rbac web/openapi.json web/src/api/schema.ts internal/apiclient $(CHART)/crds $(CHART)/files
check-generated: generate
	@git diff --exit-code -- $(GENERATED) && \
		test -z "$$(git status --porcelain -- $(GENERATED))" || \
		(echo "generated code drifted: run 'make generate' and commit the result" >&2; exit 1)

# Nothing built is tracked: no file over 1 MB, no ELF, Mach-O or PE binary.
check-tracked:
	hack/check-tracked.sh

vet:
	$(GO) vet ./...
	@for m in $(SDK_MODULES); do $(GO) -C $$m vet ./... || exit 1; done

# Sandbox binaries (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok) built from the Go module proxy into bin/k8s/<version>;
# what is already built is skipped.
testbin:
	hack/build-testbin.sh

# Everything: generated-code drift, vet, gofmt and go mod tidy, the lint
# (golangci-lint pinned in hack/golangci-lint, .golangci.yml), the build
# (the dashboard from its lock: npm ci, tsc, vite, so it fails on a type
# error; the CLI and the plugins), the sandbox and Flux binaries,
# shellcheck (apt) for the bootstrap scripts, then every test with a
# throwaway PostgreSQL 15 (plugin_test builds the plugins itself), the SDK
# modules' tests (the Terraform runner's against a sandbox; the local
# cloud's start clusters from bin/k8s), the kubeopera
# dev end-to-end tests on their own, and last the dashboard in a real
# browser (test-web, without building again).
test: check-tracked check-generated vet check-format lint build testbin
	$(MAKE) lint-openapi
	@command -v shellcheck >/dev/null || hack/ensure-shellcheck.sh
	hack/with-postgres.sh $(GO) test -count=1 -timeout 20m ./...
	$(GO) -C sdk test -count=1 -timeout 20m ./...
	$(GO) run ./hack/with-sandbox $(GO) -C sdk/terraform test -count=1 -timeout 20m ./...
	$(GO) -C sdk/localcloud test -count=1 -timeout 20m ./...
	KUBEOPERA_TEST_DEV=1 $(GO) test -count=1 -timeout 20m -run 'TestDevProvisionsALocalClusterToReadyAndCtrlCLeavesNothing|TestOutsiderPluginProvisionsThroughTheServerToReady|TestFakecloudPluginProvisionsScalesAndTearsDownThroughDev' ./cmd/kubeopera/
	$(MAKE) -o build -o testbin test-web

# The AWS plugins' upstream checks that need kubeadm: hack/build-kubeadm.sh
# builds it from k8s.io/kubernetes for every offered minor into
# bin/kubeadm/<version> (skipped when there), then `kubeadm config
# validate` runs on every configuration the bootstrap renders, beside the
# other checks against upstream's modules (flannel, containerd,
# cloud-provider-aws). Not part of `make test`: the cold build is long.
test-aws:
	@command -v shellcheck >/dev/null || hack/ensure-shellcheck.sh
	hack/build-kubeadm.sh
	KUBEOPERA_TEST_AWS=1 $(GO) test -count=1 -timeout 20m ./plugins/internal/upstream/ ./plugins/internal/bootstrap/ ./plugins/internal/tfmodules/

# A real node for the sandbox (internal/testkit/node): hack/build-node.sh builds
# the kubelet and kube-proxy (the sandbox's k8s.io/kubernetes), containerd
# 2 and the CNI plugins into bin/node (skipped when there; runc, iptables
# and busybox-static from apt) and the pause and Terraform images as OCI
# layouts. Then the tests run pods in real containers in a network
# namespace of their own, a Terraform Job, and KubeOpera's chart from the
# image `make image` builds, on a throwaway PostgreSQL. Needs root. Not
# part of `make test`: the cold build is long.
# Twenty HostClusters onboarded at once through the real controller, Flux
# and git server must all become Ready (about 2 minutes; not part of
# `make test` for its cost).
test-fleet: testbin
	KUBEOPERA_TEST_FLEET=1 $(GO) test -count=1 -timeout 20m -v -run 'TestClustersOnboardedAtOnceAllBecomeReady|TestDevProvisionsFiveClustersAtOnceAllReady' ./host/pipeline/ ./cmd/kubeopera/

# The crash test (test/chaos): the real server and controller as separate
# processes on one PostgreSQL (its own, so it can be killed) and a
# management sandbox, with the local provider; each round provisions or
# tears down, SIGKILLs one of the server, the controller, the plugin,
# PostgreSQL or a cluster's kube-apiserver, restarts it, and classifies
# every cluster. CHAOS_ROUNDS (default 30, about 3 minutes each) and
# KUBEOPERA_CHAOS_WAIT (default 3m) shorten it; KUBEOPERA_CHAOS_SEED
# replays a run. Not part of `make test`: it takes over an hour.
CHAOS_ROUNDS ?= 30
test-chaos: build testbin
	KUBEOPERA_TEST_CHAOS=1 KUBEOPERA_CHAOS_ROUNDS=$(CHAOS_ROUNDS) $(GO) test -count=1 -timeout 4h -v -run 'TestChaos' ./test/chaos/

test-node: testbin image
	hack/build-node.sh
	KUBEOPERA_TEST_NODE=1 hack/with-postgres.sh $(GO) test -count=1 -timeout 20m -v ./internal/testkit/node/

# Lint: golangci-lint pinned in hack/golangci-lint/go.mod (its own module),
# the config in .golangci.yml, over the root module and the SDK's modules,
# after the gofmt and go mod tidy drift checks. Part of `make test`.
$(TOOLS)/golangci-lint: hack/golangci-lint/go.mod
	cd hack/golangci-lint && GOBIN=$(TOOLS) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint

check-format:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt: run 'gofmt -w' on:"; gofmt -l $$(git ls-files '*.go'); exit 1) >&2
	@for m in . $(SDK_MODULES); do $(GO) -C $$m mod tidy -diff >/dev/null || (echo "$$m: go.mod/go.sum are not tidy: run 'go mod tidy' there and commit the result" >&2; exit 1) || exit 1; done

lint: check-format $(TOOLS)/golangci-lint
	$(TOOLS)/golangci-lint run --allow-parallel-runners ./...
	@for m in $(SDK_MODULES); do (cd $$m && $(TOOLS)/golangci-lint run --allow-parallel-runners --config $(CURDIR)/.golangci.yml ./...) || exit 1; done

# Benchmarks print figures and same-run ratios against a baseline; the
# output is kept in bin/bench.log and the figures with a goal end up in one
# summary table (hack/benchsummary) at the end.
BENCHLOG := $(BIN)/bench.log
BENCHRUN := set -o pipefail; $(GO) test -run '^$$'
bench: testbin
	@mkdir -p $(BIN) && : > $(BENCHLOG)
	$(BENCHRUN) -bench . -benchtime 2s ./plugin_test/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -timeout 30m -bench ListClusters10000 -benchtime 4000x ./server/api/ | tee -a $(BENCHLOG)
	set -o pipefail; hack/with-postgres.sh $(GO) test -run '^$$' -bench ListClustersPostgres50 -benchtime 3x ./server/api/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -bench FanOut100 -benchtime 20x ./server/federation/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -bench 'Overview1000|OverviewViewers50' -benchtime 5x ./server/federation/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -bench Start -benchtime 5x ./internal/sandbox/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -timeout 60m -bench Connect5000 -benchtime 1x ./host/controller/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -bench . -benchtime 5x ./host/pipeline/gitrepo/ ./host/pipeline/fluxsync/ ./host/pipeline/fluxinstall/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -bench Generate ./host/pipeline/gitops/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -bench 'Proxy$$' -benchtime 300x ./server/k8sproxy/ | tee -a $(BENCHLOG)
	$(BENCHRUN) -bench ProxyWatches50 -benchtime 3x ./server/k8sproxy/ | tee -a $(BENCHLOG)
	$(MAKE) bench-web | tee -a $(BENCHLOG)
	@$(GO) run ./hack/benchsummary < $(BENCHLOG)

# Run the product on its embedded defaults: the REST API on SQLite in ./data,
# listening on 127.0.0.1:8080 (LISTEN=host:port for another), with the
# plugins in bin/plugins.
# make run and make dev listen on LISTEN (host:port), else on 127.0.0.1:PORT,
# else on the program's default (127.0.0.1:8080).
LISTEN_FLAG = $(if $(LISTEN),--listen $(LISTEN),$(if $(PORT),--listen 127.0.0.1:$(PORT)))

run: build
	$(BIN)/kubeopera server $(LISTEN_FLAG)

# The whole platform on this machine (management sandbox, server, controller,
# git server, Flux chart repository, Flux controllers, the local provider)
# until Ctrl-C, which tears down the clusters plugins provisioned and removes
# everything. PORT=9090 (loopback) or LISTEN=host:port picks the address.
dev: build testbin
	$(BIN)/kubeopera dev --plugin-dir $(BIN)/plugins $(LISTEN_FLAG)

# The container image ghcr.io/ochestra-tech/kubeopera:$(VERSION), built
# without a container runtime (hack/image, go-containerregistry, as ko
# does): bin/image/kubeopera-oci (OCI layout) and bin/image/kubeopera.tar
# (docker load). Static programs, non-root, CA certificates from this machine.
image:
	@rm -rf $(BIN)/image/stage && mkdir -p $(BIN)/image/stage/plugins
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(BIN)/image/stage/kubeopera ./cmd/kubeopera
	@for p in $(IMAGE_PLUGINS); do \
		CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(BIN)/image/stage/plugins/kubeopera-provider-$$p ./plugins/$$p || exit 1; \
	done
	cd hack/image && $(GO) run . -binary $(BIN)/image/stage/kubeopera -plugins $(BIN)/image/stage/plugins \
		-version $(VERSION) -revision "$(REVISION)" -out $(BIN)/image

# The dashboard (web/, Node 20 or newer): the production build into
# server/web/dist, which the CLI embeds. Rebuilt only when web/ changed
# (the sources, the document and its types, the lock); npm ci runs only
# when the lock changed (a stamp in node_modules), so a warm build of an
# unchanged dashboard costs nothing.
WEB_INSTALLED := web/node_modules/.kubeopera-installed
WEB_SOURCES := $(shell find web/src web/index.html web/vite.config.ts web/tsconfig.json web/openapi.json web/package.json -type f 2>/dev/null)
web: server/web/dist/index.html

$(WEB_INSTALLED): web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	@touch $@

server/web/dist/index.html: $(WEB_INSTALLED) $(WEB_SOURCES)
	cd web && npm run build

# The API document under redocly's recommended-strict rules (web/redocly.yaml,
# web/.redocly.lint-ignore.yaml) and spectral's oas ruleset
# (web/.spectral.yaml), failing on any warning; both pinned in
# web/package.json, installed by the build's npm ci.
lint-openapi:
	cd web && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint openapi.json && \
		npx spectral lint openapi.json --fail-severity=warn

# Regenerate the dashboard's API types from the server's OpenAPI document
# (part of generate, so its drift is checked; `npm run gen:api` is the same
# command).
web-types: $(WEB_INSTALLED)
	$(GO) run ./hack/openapi > web/openapi.json
	cd web && npm run --silent gen:api

# The dashboard: first the Vitest unit tests of its pure pieces
# (web/src/**/*.test.ts*), then in a real browser: the Playwright suite
# in web/e2e (its npm packages come with the build's npm ci) in Debian's chromium,
# installed with apt when /usr/bin/chromium is missing (Playwright never
# downloads a browser), against `kubeopera dev` on a free port; the
# single sign-on spec signs in through the test kit's OpenID Provider
# (internal/testkit/testoidc) served by bin/testoidc, rebuilt when its sources change.
# Screenshots: web/e2e/screenshots.
test-web: build testbin $(BIN)/testoidc
	cd web && npx vitest run
	@test -x /usr/bin/chromium || (apt-get update && apt-get install -y chromium)
	cd web && npx playwright test

testoidc: $(BIN)/testoidc

$(BIN)/testoidc: go.mod go.sum $(wildcard internal/testkit/testoidc/*.go hack/testoidc/*.go)
	$(GO) build -o $@ ./hack/testoidc

# Dashboard figures: gzipped JS+CSS (budget 350 KB) and the time until
# /clusters shows 1,000 clusters in headless Chromium (budget 1 s).
bench-web: build testbin
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	cd web && node e2e/bundle-size.mjs && KUBEOPERA_BENCH=1 npx playwright test --project=bench

clean:
	rm -rf $(BIN)
