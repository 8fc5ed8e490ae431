# RestingKit: `make demo` runs the demo against the bundled image_server; `make test` runs every test.
# Both install the system packages they need first (scripts/install-deps.sh).

SWIFT ?= swift
# bash, for pipefail: `make bench` tees each benchmark's output, and a failing benchmark must still fail it.
SHELL := /bin/bash
# Zero warnings is a rule of the project: the build that precedes the tests treats them as errors.
STRICT := -Xswiftc -warnings-as-errors
# Every trait (the integrations, off by default) whose packages resolve here is built, linted and tested, in a build
# folder of its own so that switching between it and the plain build rebuilds nothing (scripts/traits.sh: `flags`
# names that folder and the traits; scripts/docs.sh and scripts/api.sh read that build). Where a trait's packages
# cannot be resolved (no route to their Git host and no mirror), everything else is built and tested, and the run
# ends with one line naming the traits it left out.
TRAIT_FLAGS := $$(scripts/traits.sh flags)
# A folder of local copies of the traits' packages (bundles or Git repositories, scripts/mirrors.sh), for a machine
# that reaches no Git host: `make test MIRRORS=~/mirrors`. Nothing by default: SwiftPM uses the real URLs, or a mirror
# configured with `swift package config set-mirror`.
MIRRORS ?=

.PHONY: deps mirrors traits demo build lint probe test test-sanitize docs api format fuzz soak bench clean

deps:
	@scripts/install-deps.sh

mirrors:
	@if [ -n "$(MIRRORS)" ]; then scripts/mirrors.sh $(MIRRORS); fi

traits: mirrors
	@scripts/traits.sh resolve

# The tools are packages of their own (the root package declares libraries only); each depends on it by path.
demo: deps
	$(SWIFT) build --package-path Demo
	$(SWIFT) run --package-path Demo --skip-build RestingKitDemo --transport curl
	$(SWIFT) run --package-path Demo --skip-build RestingKitDemo --transport urlsession

# First the package as an app gets it, with no trait on: it must build without resolving a single package.
build: deps traits
	$(SWIFT) build $(STRICT)
	$(SWIFT) build $(STRICT) --build-tests $(TRAIT_FLAGS)

# What reads the code rather than runs it: RestingCore's folders stack as floors (each compiles with only the
# floors below it), every public symbol has a doc comment, the tree is formatted (.swift-format; `make format`
# fixes it), the public API is the recorded one (`make api` records a change, for review), and no reference in the
# repository points at a file that is not there.
lint: build
	python3 scripts/check_layers.py
	python3 scripts/check_references.py
	scripts/docs.sh check
	$(SWIFT) format lint --strict --recursive --parallel $(FORMATTED)
	scripts/api.sh check

# The crash tests of the durable stores kill a separate process, the package in Tests/CrashProbe; the footprint and
# allocation budgets read their figures from another, Tests/FootprintProbe, built optimised as an app would be.
# The debug tool packages (CrashProbe, the soak) share one build folder: each compiles RestingKit's modules with the
# same commands, so the second reuses the first's instead of compiling the whole library again. (Not the root's
# folder: a tool package built there links in a second, but SwiftPM then took the root's plan for the tool's, once
# in two clean runs, and built no CrashProbe.)
TOOLS_BUILD := .build/tools
probe: deps
	$(SWIFT) build --package-path Tests/CrashProbe --scratch-path $(TOOLS_BUILD)
	$(SWIFT) build -c release --package-path Tests/FootprintProbe

# Then the HTTP/3 suite, a package of its own built against a libcurl that speaks HTTP/3 (scripts/http3.sh): where that
# libcurl cannot be had here, one line says the suite was left out.
test: lint probe
	$(SWIFT) test $(STRICT) $(TRAIT_FLAGS)
	@SWIFT=$(SWIFT) scripts/http3.sh test
	@scripts/traits.sh notice

FORMATTED := Package.swift Sources Tests Benchmarks Fuzz Demo
format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMATTED)

# The API reference: a DocC archive per module (RestingCore's with the articles of Documentation/RestingCore.docc),
# merged into one static site in .build/docs/RestingKit.doccarchive (scripts/docs.sh says how to open it).
docs: build
	scripts/docs.sh build

api: build
	scripts/api.sh record

# Every test under ThreadSanitizer, then AddressSanitizer with LeakSanitizer. A report fails the run. Tests run
# several times slower there on two cores, which is why their time limits — hang detectors, never timing assertions —
# are five minutes. The traits that resolve are on here too, each sanitizer in a build folder of its own.
# Leaks: .ci/lsan.supp names the toolchain libraries whose own leaks are not ours, by a frame of the caller. Finding
# that frame under libcurl (built without frame pointers) takes the slow unwinder on every allocation, which made the
# whole run four times slower (620 s against 137 s here) and starved the tests with time limits. So every test runs with
# the fast unwinder, where a leak inside libcurl cannot be told FoundationNetworking's from CurlClient's and is let
# pass (.ci/lsan-libcurl.supp); then CurlClient's own suites run again with the slow unwinder and no such pass, which
# catches an easy handle, a list or a multi handle that CurlClient fails to free. Last, the HTTP/3 suite under each
# (scripts/http3.sh sanitize), on its libcurl with HTTP/3.
ASAN_SCRATCH := .build/asan
# CI leaves the HTTP/3 suite out (HTTP3_SANITIZERS=), within its time: it runs plain in `make test`.
HTTP3_SANITIZERS ?= thread address
test-sanitize: deps probe traits
	$(SWIFT) test --sanitize=thread $$(SCRATCH=.build/tsan scripts/traits.sh flags)
	cat .ci/lsan.supp .ci/lsan-libcurl.supp > $(ASAN_SCRATCH)-fast-unwind.supp
	LSAN_OPTIONS=suppressions=$(CURDIR)/$(ASAN_SCRATCH)-fast-unwind.supp \
		$(SWIFT) test --sanitize=address $$(SCRATCH=$(ASAN_SCRATCH) scripts/traits.sh flags)
	LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp:fast_unwind_on_malloc=0 \
		$(SWIFT) test --sanitize=address $$(SCRATCH=$(ASAN_SCRATCH) scripts/traits.sh flags) --filter '^CurlTests\.'
	@for sanitizer in $(HTTP3_SANITIZERS); do scripts/http3.sh sanitize $$sanitizer || exit 1; done
	@scripts/traits.sh notice

# Every fuzz target (Tests/FuzzTargets) under libFuzzer with AddressSanitizer, FUZZ_SECONDS each, starting from its
# committed corpus (Fuzz/Corpus/<target>). New inputs that add coverage go to a scratch folder, not the corpus; an
# input that crashes or breaks a property is saved as Fuzz/Crashes/<target>-crash-… and the run fails: copy it
# into the corpus once fixed, and FuzzRegressionTests replays it in `make test` from then on.
# FUZZ_SEED 0 picks a new seed every run (exploring); a fixed one replays the same mutations as a longer run with that
# seed, so that a short run that fails means a change, never luck. CI leaves it here (its build is most of a short
# run); the corpus is replayed by FuzzRegressionTests in every `make test`.
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 0
FUZZ_BUILD := .build/fuzz
fuzz: deps
	$(SWIFT) build --package-path Fuzz --scratch-path $(FUZZ_BUILD) -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
	@scripts/fuzz.sh $(FUZZ_BUILD)/debug/RestingFuzz $(FUZZ_SECONDS) $(FUZZ_SEED)

# Both transports for SOAK_SECONDS each at 64 calls in flight against the conformance server on loopback: GETs,
# uploads, downloads, cancellations and faults, with memory, descriptors and threads sampled (RESULT lines). A leak of
# descriptors is judged after each transport's shutdown, not under load, where a pool grows with latency.
SOAK_SECONDS ?= 90
soak: deps
	$(SWIFT) build --package-path Benchmarks --product RestingSoak --scratch-path $(TOOLS_BUILD)
	$(TOOLS_BUILD)/debug/RestingSoak --seconds $(SOAK_SECONDS)

# Benchmarks against nginx on loopback (installs nginx): small requests (Benchmarks/bench.py), then large
# uploads and downloads with peak RSS (Benchmarks/streaming.py), then the memory of 10,000 open event streams
# (Benchmarks/stream_open.py), then WebSockets against a C floor (Benchmarks/websocket.py).
# Every RESULT goes to $(BENCH_RUN) too, and is then printed beside the recorded figures (Benchmarks/results.py), each
# that moved by more than its recorded noise marked; a recorded RESULT missing from the run fails it. To record a
# run's figures on purpose: python3 Benchmarks/results.py record $(BENCH_RUN) [another run…], then commit the file.
BENCH_RUN ?= .build/bench-run.txt
bench:
	@scripts/install-deps.sh bench
	@mkdir -p $(dir $(BENCH_RUN)) && : > $(BENCH_RUN)
	set -o pipefail; python3 -u Benchmarks/bench.py | tee -a $(BENCH_RUN)
	set -o pipefail; python3 -u Benchmarks/streaming.py | tee -a $(BENCH_RUN)
	set -o pipefail; python3 -u Benchmarks/stream_open.py | tee -a $(BENCH_RUN)
	set -o pipefail; python3 -u Benchmarks/websocket.py | tee -a $(BENCH_RUN)
	python3 Benchmarks/results.py compare $(BENCH_RUN)

# The tool packages keep their own .build folders; SwiftPM can miss a file added to this package inside an old one.
clean:
	$(SWIFT) package clean
	rm -rf Demo/.build Benchmarks/.build Fuzz/.build Tests/CrashProbe/.build Tests/FootprintProbe/.build $(TOOLS_BUILD)
