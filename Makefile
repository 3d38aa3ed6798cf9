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

.PHONY: all build plugins cli tools testbin generate check-generated vet test bench run dev image clean

all: build

build: cli plugins

cli:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/kubeopera ./cmd/kubeopera

plugins:
	@mkdir -p $(BIN)/plugins
	@for p in $(PLUGINS); do \
		$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/plugins/kubeopera-provider-$$p ./plugins/$$p || exit 1; \
	done

# Code generators: protoc plugins pinned in hack/tools/go.mod, controller-gen
# in hack/controller-gen/go.mod (own module, so its Kubernetes libraries never
# move the protoc plugins' versions).
tools: $(TOOLS)/protoc-gen-go $(TOOLS)/protoc-gen-go-grpc $(TOOLS)/controller-gen

$(TOOLS)/controller-gen: hack/controller-gen/go.mod
	cd hack/controller-gen && GOBIN=$(TOOLS) $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen

$(TOOLS)/protoc-gen-go $(TOOLS)/protoc-gen-go-grpc: hack/tools/go.mod
	cd hack/tools && GOBIN=$(TOOLS) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go google.golang.org/grpc/cmd/protoc-gen-go-grpc

generate: tools
	$(TOOLS)/controller-gen object paths=./host/api/...
	$(TOOLS)/controller-gen crd paths=./host/api/... output:crd:dir=config/crd/bases
	$(TOOLS)/controller-gen rbac:roleName=kubeopera-controller paths=./host/controller/... output:rbac:dir=config/rbac
	@command -v protoc >/dev/null || hack/ensure-protoc.sh
	PATH=$(TOOLS):$$PATH protoc -I sdk/internal/proto \
		--go_out=sdk/internal/proto --go_opt=paths=source_relative \
		--go-grpc_out=sdk/internal/proto --go-grpc_opt=paths=source_relative \
		sdk/internal/proto/provider.proto

# CI: regenerate and fail when the committed code differs.
check-generated: generate
	@git diff --exit-code -- sdk/internal/proto host/api config/crd config/rbac && \
		test -z "$$(git status --porcelain -- sdk/internal/proto host/api config/crd config/rbac)" || \
		(echo "generated code drifted: run 'make generate' and commit the result" >&2; exit 1)

vet:
	$(GO) vet ./...

# Sandbox binaries (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok) built from the Go module proxy into bin/k8s/<version>;
# what is already built is skipped.
testbin:
	hack/build-testbin.sh

# Everything: generated-code drift, vet, the sandbox and Flux binaries,
# shellcheck (apt) for the bootstrap scripts, then every test with a
# throwaway PostgreSQL 15 (plugin_test builds the plugins itself).
test: check-generated vet testbin
	@command -v shellcheck >/dev/null || hack/ensure-shellcheck.sh
	hack/with-postgres.sh $(GO) test -count=1 -timeout 20m ./...

# Benchmarks print figures and same-run ratios against a baseline.
bench: testbin
	$(GO) test -run '^$$' -bench . -benchtime 2s ./plugin_test/
	$(GO) test -run '^$$' -bench ListClusters1000 -benchtime 200x ./server/api/
	$(GO) test -run '^$$' -bench FanOut100 -benchtime 20x ./server/federation/
	$(GO) test -run '^$$' -bench Start -benchtime 5x ./internal/sandbox/
	$(GO) test -run '^$$' -bench Connect500 -benchtime 1x ./host/controller/
	$(GO) test -run '^$$' -bench . -benchtime 5x ./host/pipeline/gitrepo/ ./host/pipeline/fluxsync/ ./host/pipeline/fluxinstall/
	$(GO) test -run '^$$' -bench Generate ./host/pipeline/gitops/

# Run the product on its embedded defaults: the REST API on SQLite in ./data,
# listening on 127.0.0.1:8080, with the plugins in bin/plugins.
run: build
	$(BIN)/kubeopera server

# The whole platform on this machine (management sandbox, server, controller,
# git server, Flux chart repository, Flux controllers, the local provider)
# until Ctrl-C, which removes everything.
dev: build testbin
	$(BIN)/kubeopera dev --plugin-dir $(BIN)/plugins

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

clean:
	rm -rf $(BIN)
