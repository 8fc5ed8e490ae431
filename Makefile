# RestingKit: `make demo` runs the demo against the bundled image_server; `make test` runs every test.
# Both install the system packages they need first (scripts/install-deps.sh).

SWIFT ?= swift
# Zero warnings is a rule of the project: the build that precedes the tests treats them as errors.
STRICT := -Xswiftc -warnings-as-errors

.PHONY: deps demo build test clean

deps:
	@scripts/install-deps.sh

demo: deps
	$(SWIFT) run RestingKitDemo

build: deps
	$(SWIFT) build $(STRICT) --build-tests

test: build
	$(SWIFT) test $(STRICT)

clean:
	$(SWIFT) package clean
