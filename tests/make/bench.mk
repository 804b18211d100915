# bench.mk -- the benchmarks, included by the Makefile.
#
# make bench: this project's servers next to a real Redis (throughput and CPU
# time per request, memory per key, instructions per command, replication,
# the expiry strategies side by side), the fast path (step 12) beside the
# plain step before it; writes docs/benchmarks.md and docs/img/bench-*.png.
# ROUNDS=N (default 5), QUICK=1 for a smoke run (report in build/bench/).
# make bench-timewheel [ARGS=...]: the timing wheel against a binary heap,
# alone (chapter 06).

.PHONY: bench bench-timewheel
bench:
	@bash tests/bench/bench.sh

WHEEL_STEP := 06-timewheel
$(BUILD)/tools/bench_timewheel: tests/$(WHEEL_STEP)/bench_timewheel.c steps/$(WHEEL_STEP)/timewheel.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -DSTEP_NAME='"$(WHEEL_STEP)"' -Isteps/$(WHEEL_STEP) $^ -o $@

bench-timewheel: $(BUILD)/tools/bench_timewheel
	$(BUILD)/tools/bench_timewheel $(ARGS)
