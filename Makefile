# mqgate — see README.md.
GO      ?= go
BIN     := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X github.com/mqgate/mqgate/internal/cliapp.Version=$(VERSION)
TOOLS   := $(notdir $(wildcard cmd/*))
IMAGE   ?= mqgate:latest
# The Zenoh helper linked statically, for the image (scripts/build-zenoh.sh static).
ZENOH_STATIC := $(or $(CARGO_TARGET_DIR),tools/mqgate-zenoh/target)/x86_64-unknown-linux-gnu/release/mqgate-zenoh
# The helper the image holds: $(MQGATE_ZENOH_HELPER) when set (a static build
# made before, e.g. by CI or another clone: checked, copied, not rebuilt, no
# cargo needed), else the one zenoh-static builds (or finds up to date).
IMAGE_HELPER := $(or $(MQGATE_ZENOH_HELPER),$(ZENOH_STATIC))
IMAGE_HELPER_BUILD := $(if $(MQGATE_ZENOH_HELPER),,zenoh-static)

.PHONY: all build test test-short bench lint demo install clean zenoh zenoh-static zenoh-test static image

all: build

## build: every tool into bin/
build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

## test: the whole test suite with the race detector; the end-to-end tests
## (internal/e2e) and the gate proof (scripts/gate-proof) run after the
## rest, one package at a time, alone, because they gate real runs and
## assert the verdicts: other packages' tests on the same cores make
## consecutive pairs alike, which holds the gate to its budget (the gate
## proof's 10 % slower case ran out of its 150 rounds beside the race
## pass, latency spread 0.98 against 0.12 alone). The
## statistical simulations (tests named TestSim…) and the sweeps of one
## goroutine through many inputs (TestSweep…), in files built only without
## the race detector, run in a go test of their own, without -race: work
## that the race detector slows several times over and has nothing to find
## in. SIMS are the packages that hold them (deploy's
## TestMakeTestRunsEverySimulation checks that each runs once).
SIMS := ./internal/changepoint ./internal/compare ./internal/history ./internal/requirements ./internal/runapp ./internal/stats/...
## RACE_ENV: a race-built program (every test binary and the programs the
## tests build with -race and start) sleeps 1 s at exit by default, to let
## late goroutines report; a race still ends it with exit 66 and its report.
RACE_ENV := GORACE="$${GORACE:-atexit_sleep_ms=0}"
## SLOWEST: the packages whose tests take longest (a minute or more each),
## named first: go test starts packages in the order it is given them (and
## runs each once), so the race pass does not end on one of them alone.
SLOWEST := ./internal/roles ./internal/runapp ./deploy ./internal/load ./internal/driver/mqtt ./cmd/history ./internal/driver/amqp
## TEST_P: packages the race pass and test-short test at once, one more
## than the cores: their tests wait on brokers, the programs they start and
## timers for about a fifth of the race pass (18.6 % of two cores idle at go
## test's default, one per core); on two cores a third package cut the race
## pass from 11 min 50 s to 9 min 6 s, and test-short from 4 min 49 s to
## 4 min 17 s. The simulations, CPU-bound, keep the default.
TEST_P ?= $$(( $$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) + 1 ))
test:
	$(RACE_ENV) $(GO) test -race -p $(TEST_P) -timeout 30m $(SLOWEST) $$($(GO) list ./... | grep -v -e '/internal/e2e$$' -e '/scripts/gate-proof$$')
	$(GO) test -timeout 30m -run '^Test(Sim|Sweep)' $(SIMS)
	$(RACE_ENV) $(GO) test -race -p 1 -timeout 30m ./scripts/gate-proof ./internal/e2e

## test-short: the quick suite, for a change before make test: -short (the
## tests that build and run every tool, bring Docker up or run long
## simulations skip) without the race detector, every package at once
test-short:
	$(GO) test -short -p $(TEST_P) -timeout 15m ./...

## bench: speed figures against their targets (see scripts/bench.sh)
bench:
	bash scripts/bench.sh

## lint: formatting (Go, and the Zenoh helper's Rust when cargo is here) and vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@if command -v cargo >/dev/null 2>&1; then cargo fmt --check --manifest-path tools/mqgate-zenoh/Cargo.toml; else echo "lint: no cargo: the Zenoh helper's formatting is not checked"; fi

## demo: the whole chain on this machine, no broker needed (builds the tools itself, saying so)
demo:
	GO='$(GO)' LDFLAGS='$(LDFLAGS)' bash scripts/demo.sh

## install: the one program `mqgate TOOL …` into `go env GOBIN` (default ~/go/bin): no program named run, compare or history on PATH
install:
	$(GO) install -ldflags '$(LDFLAGS)' ./cmd/mqgate

## zenoh: the Zenoh measurement helper (tools/mqgate-zenoh; needs cargo, reuses its build)
zenoh:
	bash scripts/build-zenoh.sh

## zenoh-static: the helper linked statically (+crt-static), as the image needs it
zenoh-static:
	bash scripts/build-zenoh.sh static

## static: the image's contents in $(BIN)/image: the six tools, mqgate and nats-server
## (CGO_ENABLED=0, the module's pinned nats-server), the static helper
## ($(MQGATE_ZENOH_HELPER) when set, else zenoh-static's), a passwd naming the
## unprivileged user
static: $(IMAGE_HELPER_BUILD)
	bash scripts/build-zenoh.sh check-static '$(IMAGE_HELPER)'
	@rm -rf $(BIN)/image && mkdir -p $(BIN)/image/bin $(BIN)/image/etc $(BIN)/image/artifacts
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' -o $(BIN)/image/bin/ ./cmd/...
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(BIN)/image/bin/nats-server github.com/nats-io/nats-server/v2
	cp '$(IMAGE_HELPER)' $(BIN)/image/bin/mqgate-zenoh
	printf 'root:x:0:0:root:/:/sbin/nologin\nmqgate:x:65532:65532:mqgate:/artifacts:/sbin/nologin\n' >$(BIN)/image/etc/passwd
	printf 'root:x:0:\nmqgate:x:65532:\n' >$(BIN)/image/etc/group

## image: the container image $(IMAGE) (deploy/Dockerfile, FROM scratch) from what static built;
## MQGATE_ZENOH_HELPER=/path/to/static/mqgate-zenoh make image reuses a helper built before
image: static
	docker build -f deploy/Dockerfile -t $(IMAGE) $(BIN)/image

## zenoh-test: the helper's Rust unit tests, then the Go tests that run it
zenoh-test:
	bash scripts/build-zenoh.sh test
	$(GO) test -race ./internal/driver/zenoh/zenohhelper/

clean:
	rm -rf $(BIN) demo-results
