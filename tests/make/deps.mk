# deps.mk -- the test tools, included by the Makefile: make deps installs them
# (Debian/Ubuntu); make test and the other test targets check first.

.PHONY: deps check-deps
deps:
	@bash tests/tools/deps.sh install

check-deps:
	@bash tests/tools/deps.sh check
