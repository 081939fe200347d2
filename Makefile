# agentkit: contract generation, build and checks. `make help` lists the targets.
.PHONY: help install generate check-generated lint-contract format check-format lint check-cycles check-adr-refs check-exports update-exports check-package check-docs build typecheck test ci bench

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 20

install: ## Install dependencies exactly as locked, then build dist/ (no install-time script builds it)
	npm ci
	npm run build

generate: ## Regenerate generated/ from spec/ (commit both)
	node scripts/generate.mjs

check-generated: ## Fail when generated/ differs from what spec/ generates
	node scripts/check-generated.mjs

lint-contract: ## Lint generated/openapi/*.yaml with Redocly's recommended rules (redocly.yaml); zero problems
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx --no-install redocly lint

format: ## Format the TypeScript and scripts with Biome (biome.json)
	npx --no-install biome format --write .

check-format: ## Fail when a file is not formatted as `make format` would write it
	npx --no-install biome format .

lint: ## Lint the TypeScript and scripts with Biome's recommended rules (biome.json); zero errors and zero warnings
	npx --no-install biome lint --error-on-warnings .

check-cycles: ## Fail on an import cycle, an import up ARCHITECTURE.md's layer table, or a source importing test code (dpdm)
	node scripts/check-imports.mjs

check-adr-refs: ## Fail when a file cites a decision number, or an ADR that docs/adr/ does not hold
	node scripts/check-adr-refs.mjs

check-exports: ## Fail when an entry point's public names or kinds differ from conformance/fixtures/api/exports.json
	node --conditions=agentkit-source --import tsx scripts/check-exports.mjs

update-exports: ## Rewrite the public API snapshot after an intended API change (commit it with the change)
	node --conditions=agentkit-source --import tsx scripts/check-exports.mjs --update

check-package: ## Pack the built dist/ (npm pack --ignore-scripts) and lint the tarball with publint; warnings fail as errors
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	npm pack --ignore-scripts --silent --pack-destination "$$dir" >/dev/null && \
	npx --no-install publint run --strict "$$dir"/agentkit-*.tgz

check-docs: ## Run every shell and TypeScript block of README.md and docs/*.md, then every example twice (built CLI: build first)
	node scripts/docs-runner.mjs
	node --import tsx scripts/examples-rerun.check.ts

build: ## Compile src/, cli/ and generated/ to dist/
	node scripts/build.mjs

typecheck: ## Type-check everything, tests included
	npx tsc -p tsconfig.json --noEmit

test: ## Run every unit test and the conformance suite on every backend
	npm test

ci: check-generated lint-contract check-format lint check-cycles check-adr-refs check-exports typecheck build check-package test ## What .ci/run runs after installing

bench: ## Run the benchmarks under bench/
	node scripts/bench.mjs
