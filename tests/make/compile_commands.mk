# compile_commands.mk -- compile_commands.json for clangd, included by the
# Makefile: every C file with the flags and include paths make uses.

.PHONY: compile_commands.json
compile_commands.json: $(foreach s,$(STEPS),$(call common_copy_of,$(s)))
	@BUILD=$(BUILD) python3 tests/tools/compile_commands.py "$(CC)" "$(CFLAGS)" > $@
	@echo "wrote $@ ($$(grep -c '"file"' $@) files)"
