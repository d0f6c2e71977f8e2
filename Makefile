# The two commands a new machine needs: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
# Lambda functions: directory under functions/ -> SAM logical id.
FUNCTIONS := api-allowlist:ApiAllowlistFunction api-tracks:ApiTracksFunction api-search:ApiSearchFunction catalog-ingest:CatalogIngestFunction api-recognition:ApiRecognitionFunction recognition-prepare:RecognitionPrepareFunction recognition-extract:RecognitionExtractFunction recognition-match:RecognitionMatchFunction recognition-external:RecognitionExternalFunction recognition-finish:RecognitionFinishFunction api-soundtrack:ApiSoundtrackFunction api-licenses:ApiLicensesFunction api-playlists:ApiPlaylistsFunction api-downloads:ApiDownloadsFunction
FUNCTIONS += build-zip:BuildZipFunction
FUNCTIONS += build-render:BuildRenderFunction mailer:MailerFunction
LAMBDA_FLAGS := GOOS=linux GOARCH=arm64 CGO_ENABLED=0
LAMBDA_BUILD = $(LAMBDA_FLAGS) $(GO) build -tags lambda.norpc -trimpath -ldflags "-s -w"

.PHONY: run test test-unit bench build deploy tools lint clean

# ffmpeg: the machine's own, else the pinned static build that
# infra/local/ffmpeg.sh fetches once into ~/.cache (the tests and the
# devserver find it on PATH).
FFMPEG_BIN = $(if $(shell command -v ffmpeg),,$(shell bash infra/local/ffmpeg.sh cache))
WITH_FFMPEG = $(if $(FFMPEG_BIN),PATH="$(FFMPEG_BIN):$$PATH")

## run: the API on http://127.0.0.1:8080 with embedded stores and the demo
## catalog (generated on first run; ADDR, DATA_DIR override).
run:
	$(WITH_FFMPEG) $(GO) run ./functions/admin demo --if-empty
	$(WITH_FFMPEG) $(GO) run ./functions/devserver

## test: everything — unit, conformance on both twins, HTTP, Lambda events, integration.
test: tools lint
	$(WITH_FFMPEG) bash infra/local/with-stack.sh $(GO) test -count=1 -timeout 30m ./...
	$(MAKE) fuzz

## fuzz: each fuzz test for a bounded number of inputs (issue 14: query parser, JSON decoder,
## multipart reader, manifest parser); seeds in each package's testdata/fuzz/, which `go test`
## also runs. Counts, not seconds: a duration-bounded run can end in a spurious "context deadline
## exceeded" when the time runs out while a worker is busy (seen here under load), and a CI run
## must not fail at random. Each count is a few seconds of fuzzing here; FUZZTIME=30s overrides.
.PHONY: fuzz
FUZZTIME ?=
FUZZ_TARGETS := ./pkg/search/:FuzzUnderstand:20000x ./pkg/search/:FuzzByText:2000x \
	./pkg/httpapi/:FuzzDecodeJSON:20000x ./pkg/httpapi/recognitionapi/:FuzzRecognitionMultipart:40000x \
	./pkg/catalog/manifest/:FuzzManifestParse:15000x ./pkg/catalog/manifest/:FuzzManifestRoundTrip:60000x
fuzz:
	@rc=0; for t in $(FUZZ_TARGETS); do IFS=: read -r pkg name count <<< "$$t"; count=$${FUZZTIME:-$$count}; \
	  if ! $(GO) test -list "^$$name\$$" $$pkg | grep -qx "$$name"; then \
	    echo "fuzz: no $$name in $$pkg (moved or renamed?)"; rc=1; continue; fi; \
	  echo "fuzz $$name ($$count)"; $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $$count $$pkg || rc=1; done; exit $$rc

## test-unit: the tests that need no stand-in (twins only).
test-unit:
	$(GO) test ./...

## bench: benchmarks that print figures (never asserted).
bench:
	$(GO) test -run '^$$' -bench DevserverAuthenticatedGET -benchtime 20000x ./pkg/app/
	$(GO) test -run '^$$' -bench SearchByText10k -benchtime 20000x ./pkg/app/
	$(GO) test -run '^$$' -bench LicenseGenerate -benchtime 5000x ./pkg/app/
	$(GO) test -run '^$$' -bench 'RelevanceNDCG|SimilarPrecisionDemo|SimilarPrecisionHeldout' -benchtime 1x -timeout 30m ./pkg/search/
	$(GO) test -run '^$$' -bench 'ByID100k|ByText10k' -benchtime 1000x ./pkg/search/
	$(GO) test -run '^$$' -bench RecognitionEndToEnd -benchtime 1x -timeout 30m ./pkg/app/
	$(GO) test -run '^$$' -bench Analyze60s -benchtime 3x ./pkg/soundtrack/videoanalysis/
	$(GO) test -run '^$$' -bench Render60s720p -benchtime 3x ./pkg/soundtrack/render/
	$(GO) test -run '^$$' -bench 'SnapshotLoad50k|IngestWesnoth|Demo' -benchtime 1x ./pkg/catalog/...
	$(GO) test -run '^$$' -bench BenchmarkAccuracy -benchtime 1x -timeout 60m ./pkg/audio/fingerprint/
	$(GO) test -run '^$$' -bench 'BenchmarkSpeedPitch$$' -benchtime 1x -timeout 60m ./pkg/audio/fingerprint/

## tools: check (and under CI=true require) the tools the tests use.
tools:
	@$(WITH_FFMPEG) bash infra/local/check-tools.sh

## lint: cfn-lint on template.yaml, asl-validator on every state machine.
lint:
	@bash infra/local/lint.sh

## build: every Lambda as bootstrap for provided.al2023 arm64 under build/.
build:
	@set -e; for f in $(FUNCTIONS); do dir=$${f%%:*}; \
	  echo "build $$dir"; $(LAMBDA_BUILD) -o build/$$dir/bootstrap ./functions/$$dir; done

# SAM `BuildMethod: makefile` calls build-<LogicalId> with ARTIFACTS_DIR set.
define sam_target
build-$(2):
	$(LAMBDA_BUILD) -o $$(ARTIFACTS_DIR)/bootstrap ./functions/$(1)
endef
$(foreach f,$(FUNCTIONS),$(eval $(call sam_target,$(word 1,$(subst :, ,$(f))),$(word 2,$(subst :, ,$(f))))))

# The FFmpegLayer (template.yaml): the pinned static arm64 ffmpeg and ffprobe in /opt/bin.
build-FFmpegLayer:
	bash infra/local/ffmpeg.sh install arm64 $(ARTIFACTS_DIR)/bin

## deploy: sam build + sam deploy with samconfig.toml (needs AWS credentials);
## guided: asks for the parameters, saving the answers as the next defaults.
deploy:
	sam build
	sam deploy --guided

clean:
	rm -rf build .aws-sam
