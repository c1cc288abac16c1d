# agentlint — see README.md. Every target works on a fresh clone with Go installed.
GO        ?= go
BIN       ?= bin/agentlint
COMMIT    := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.gitCommit=$(COMMIT)

.PHONY: build test test-short demo bench lint generate conformance fuzz

# bin/agentlint-cue is the same CLI with the CUE evaluator linked in; the
# default binary runs it for --engine cue (linking CUE costs ~3.5 ms of start-up).
# CGO_ENABLED=0: a static binary; pflag links package net, which would
# otherwise link libc and start every process through the dynamic loader
# (~1 ms of a one-record `validate`).
# bin/agentlint-serve is the same CLI with the HTTP server (cmd/agentlint/server and
# the Prometheus client) linked in; `agentlint serve` hands over to it.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/agentlint
	CGO_ENABLED=0 $(GO) build -trimpath -tags cueengine -ldflags '$(LDFLAGS)' -o $(BIN)-cue ./cmd/agentlint
	CGO_ENABLED=0 $(GO) build -trimpath -tags serveengine -ldflags '$(LDFLAGS)' -o $(BIN)-serve ./cmd/agentlint

# The developer commands live in lint/internal/devcmd (schemagen, the code
# generator; lintbench, lintgen and hellodeps, the benchmark commands) and
# are behind the build tag devtools, so that a user's `go install ./...`
# (pre-commit's golang hooks) builds only the agentlint command; every
# target that builds, tests or checks them passes the tag.
TAGS      := -tags devtools

# The one test command (README, .ci/run): unit, golden, conformance,
# agreement and CLI (testscript) tests, the developer tools' too.
test:
	$(GO) test $(TAGS) ./...

# The quick loop while editing (about 40 s warm on 2 cores): -short skips the
# slow agreement sweeps, the verdicts of generated logs, the slowest git
# cases, the tests that install tools, and runs 4 of the CLI scripts; every
# skipped test says that `make test` runs it (lint/README.md, Tests).
test-short:
	$(GO) test $(TAGS) -short ./...

# Lint the built-in demo tree, as a new user would: builds only bin/agentlint.
demo:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/agentlint
	./$(BIN) lint --format text testdata/demo; test $$? -le 1

# Benchmarks, not part of `make test`: agentlint on generated 100k- and
# 1M-line logs next to the jsontext IsValid floor and ajv (installed into
# .cache/tools/ajv by scripts/tools/ajv.sh), start-up against hello world and
# replay, then an orchestrator in Python 3 validating packets one process
# each, through the validate --stream co-process and through agentlint-serve
# (lint/internal/devcmd/lintbench), then the Go benchmarks of the engine.
bench: build
	$(GO) run $(TAGS) ./lint/internal/devcmd/lintbench -bin $(BIN) -ajv "$$(scripts/tools/ajv.sh)"
	$(GO) test $(TAGS) -run '^$$' -bench . -benchmem ./lint/...

# Static checks: gofmt, go vet, staticcheck (installed on demand).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(TAGS) ./...
	$(GO) vet -tags cueengine ./cmd/agentlint
	$(GO) vet -tags serveengine ./cmd/agentlint
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags devtools,serveengine ./...

# Regenerate the fast path and the exported JSON Schemas from cue/*.cue and the test schemas of
# lint/internal/fasttest (a test fails when either is stale).
generate:
	$(GO) generate $(TAGS) ./lint/fast/... ./lint/internal/fasttest ./lint/schemaexport

# Go native fuzzing of every reader of untrusted bytes, FUZZTIME each
# (`make fuzz FUZZTIME=30m`). `make test` runs their seed corpora
# (f.Add and testdata/fuzz/FuzzX/); crashers land in testdata/fuzz/FuzzX/.
FUZZTIME ?= 30s
FUZZ_TARGETS := \
	./lint:FuzzChunkReader ./lint:FuzzLineReader ./lint:FuzzRecord ./lint:FuzzTemplate \
	./lint:FuzzAssignment ./lint:FuzzConfig ./lint/internal/jsonschema:FuzzCollectorSchema \
	./lint/cueeval:FuzzAgreement ./lint/replay:FuzzReplay ./lint/gitbase:FuzzCompare \
	./lint/summarize:FuzzSummarize ./lint/fast:FuzzNatives ./lint/fast:FuzzScanner ./lint/fast:FuzzAccept ./lint/fast:FuzzDecode ./lint/record:FuzzInPlaceAgrees ./lint/record:FuzzOperatorInPlaceAgrees \
	./lint/output:FuzzOutputSanitize ./lint:FuzzWalk ./lint/secrets:FuzzRedact
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; echo "== $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test $(TAGS) -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done
