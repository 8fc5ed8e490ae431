# RestingKit: `make demo` runs the demo against the bundled image_server; `make test` runs every test.
# Both install the system packages they need first (scripts/install-deps.sh).

SWIFT ?= swift
# Zero warnings is a rule of the project: the build that precedes the tests treats them as errors.
STRICT := -Xswiftc -warnings-as-errors

.PHONY: deps demo build test bench clean

deps:
	@scripts/install-deps.sh

demo: deps
	$(SWIFT) run RestingKitDemo

build: deps
	$(SWIFT) build $(STRICT) --build-tests

test: build
	$(SWIFT) test $(STRICT)

# Small-request benchmark against nginx on loopback (installs nginx); see Benchmarks/bench.py.
bench:
	@scripts/install-deps.sh bench
	python3 Benchmarks/bench.py

clean:
	$(SWIFT) package clean
