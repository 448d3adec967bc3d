# mqgate — see README.md.
GO      ?= go
BIN     := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X github.com/mqgate/mqgate/internal/cliapp.Version=$(VERSION)
TOOLS   := $(notdir $(wildcard cmd/*))

.PHONY: all build test bench lint demo clean zenoh zenoh-test

all: build

## build: every tool into bin/
build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

## test: the whole test suite with the race detector
test:
	$(GO) test -race -timeout 30m ./...

## bench: speed figures against their targets (see scripts/bench.sh)
bench:
	bash scripts/bench.sh

## lint: formatting and vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## demo: the whole chain on this machine, no broker needed
demo: build
	bash scripts/demo.sh

## zenoh: the Zenoh measurement helper (tools/mqgate-zenoh; needs cargo, reuses its build)
zenoh:
	bash scripts/build-zenoh.sh

## zenoh-test: the helper's Rust unit tests, then the Go tests that run it
zenoh-test:
	bash scripts/build-zenoh.sh test
	$(GO) test -race ./internal/driver/zenoh/zenohhelper/

clean:
	rm -rf $(BIN) demo-results
