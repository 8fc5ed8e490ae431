# RestingKit: `make demo` runs the demo against the bundled image_server; `make test` runs every test.
# Both install the system packages they need first (scripts/install-deps.sh).

SWIFT ?= swift
# Zero warnings is a rule of the project: the build that precedes the tests treats them as errors.
STRICT := -Xswiftc -warnings-as-errors

.PHONY: deps demo build test test-sanitize bench clean

deps:
	@scripts/install-deps.sh

demo: deps
	$(SWIFT) build --product RestingKitDemo
	$(SWIFT) run --skip-build RestingKitDemo --transport curl
	$(SWIFT) run --skip-build RestingKitDemo --transport urlsession

build: deps
	$(SWIFT) build $(STRICT) --build-tests

test: build
	$(SWIFT) test $(STRICT)

# Every test under ThreadSanitizer, then AddressSanitizer (with LeakSanitizer; .ci/lsan.supp names the toolchain
# libraries whose own leaks are not ours). A report fails the run.
test-sanitize: deps
	$(SWIFT) test --sanitize=thread
	LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp:fast_unwind_on_malloc=0 $(SWIFT) test --sanitize=address

# Benchmarks against nginx on loopback (installs nginx): small requests (Benchmarks/bench.py), then large
# uploads and downloads with peak RSS (Benchmarks/streaming.py).
bench:
	@scripts/install-deps.sh bench
	python3 Benchmarks/bench.py
	python3 Benchmarks/streaming.py

clean:
	$(SWIFT) package clean
