# fsm.mk -- chapter 07's state machine as documentation, included by the
# Makefile.
#
# print_fsm prints the transition table of steps/07-set-options-fsm/set_fsm.c
# as Markdown and as a Graphviz drawing. make fsm-docs writes them under
# docs/; make fsm-check (which make test runs) fails when those are stale.

FSM_STEP := 07-set-options-fsm
$(BUILD)/tools/print_fsm: tests/$(FSM_STEP)/print_fsm.c steps/$(FSM_STEP)/set_fsm.c common/strnum.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -DSTEP_NAME='"$(FSM_STEP)"' -Icommon -Isteps/$(FSM_STEP) $(filter %.c,$^) -o $@

.PHONY: fsm-docs fsm-check
fsm-docs: $(BUILD)/tools/print_fsm
	@mkdir -p docs/img
	$(BUILD)/tools/print_fsm > docs/07-set-fsm-table.md
	$(BUILD)/tools/print_fsm --dot > docs/img/07-set-fsm.dot
	@if command -v dot >/dev/null; then dot -Tsvg docs/img/07-set-fsm.dot -o docs/img/07-set-fsm.svg && echo "wrote docs/img/07-set-fsm.svg"; \
	 else echo "graphviz (dot) not installed: docs/img/07-set-fsm.svg not redrawn"; fi

fsm-check: $(BUILD)/tools/print_fsm
	@$(BUILD)/tools/print_fsm | cmp -s - docs/07-set-fsm-table.md || { echo "docs/07-set-fsm-table.md is stale: run make fsm-docs"; exit 1; }
	@$(BUILD)/tools/print_fsm --dot | cmp -s - docs/img/07-set-fsm.dot || { echo "docs/img/07-set-fsm.dot is stale: run make fsm-docs"; exit 1; }
	@if command -v dot >/dev/null; then dot -Tsvg docs/img/07-set-fsm.dot | cmp -s - docs/img/07-set-fsm.svg || { echo "docs/img/07-set-fsm.svg is stale: run make fsm-docs"; exit 1; }; fi
	@echo "the state machine's table and drawing in docs/ match set_fsm.c"
