# deps.mk -- the test tools, included by the Makefile: make deps installs them
# all (Debian/Ubuntu); each test target first installs, when missing, what
# its own parts use (tests/tools/deps.sh says which tool each part needs).

.PHONY: deps check-deps check-all-deps check-rest-deps check-valgrind-deps check-asan-deps \
        check-exercise-deps check-grade-deps
deps:
	@bash tests/tools/deps.sh install

# make test and make unit.
check-deps:
	@bash tests/tools/deps.sh test

# make check: make test's and make check-rest's.
check-all-deps:
	@bash tests/tools/deps.sh all

# make check-rest: the client libraries, fuzzer, sandbox, book and the rest.
check-rest-deps:
	@bash tests/tools/deps.sh rest

# make valgrind: make test's and valgrind.
check-valgrind-deps:
	@bash tests/tools/deps.sh valgrind

# make asan: make test's and the client libraries.
check-asan-deps:
	@bash tests/tools/deps.sh asan

# make exercise-check: the suites' tools and patch.
check-exercise-deps:
	@bash tests/tools/deps.sh exercises

# What make grade and make exercise need, and no more (deps.sh grade).
check-grade-deps:
	@bash tests/tools/deps.sh grade
