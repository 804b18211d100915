# deps.mk -- the test tools, included by the Makefile: make deps installs them
# (Debian/Ubuntu); make test and the other test targets check first.

.PHONY: deps check-deps check-grade-deps
deps:
	@bash tests/tools/deps.sh install

check-deps:
	@bash tests/tools/deps.sh check

# What make grade and make exercise need, and no more (deps.sh grade).
check-grade-deps:
	@bash tests/tools/deps.sh grade
