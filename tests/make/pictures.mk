# pictures.mk -- the chapters' pictures, included by the Makefile.
#
# Each picture in docs/img/ is NAME.svg, rendered by Graphviz's dot from its
# source NAME.dot. Three sources are printed by programs that run the code
# they picture:
#   tests/tools/draw_resp_frames.c    common/resp.c's parser   01-resp-pipeline.dot
#   tests/tools/draw_wheel_cascade.c  step 06's timewheel.c    06-wheel-cascade.dot
#   tests/tools/draw_rdb_bytes.c      step 08's rdb.c writer   08-rdb-bytes.dot
# and chapter 07's state machine by print_fsm (fsm.mk). Chapter 09's two are
# drawn from an exchange recorded on the wire, a real redis-server 7.0.15
# replica syncing with step 09's master, kept as text:
#   tests/tools/record_replication.py  records   docs/img/09-replication-capture.txt
#   tests/tools/draw_replication.py    draws it  09-handshake.dot, 09-key-life.dot
# make pictures records it again (it starts both servers, and stops them;
# without redis-server 7.0.15 it keeps the capture it has). The others are
# written by hand. Every source lists the names it shows
# (tests/tools/pictures_check.sh looks them up in the code).
#
# The plots, NAME.png, are drawn by gnuplot from measured data, kept in
# docs/plots/NAME/ with the command that draws them and the figures the
# chapters quote from them (tests/tools/plots_check.py).
#
#   make pictures         record chapter 09's exchange again, print the
#                         generated sources again, redraw every .svg and
#                         every plot from its data
#   make pictures-check   fail when a picture differs from what its source draws
#                         now, a plot from what its data draw, or a chapter's
#                         figure from the data

PICTURE_TOOLS := $(BUILD)/tools/draw_resp_frames $(BUILD)/tools/draw_wheel_cascade \
                 $(BUILD)/tools/draw_rdb_bytes

$(BUILD)/tools/draw_resp_frames: tests/tools/draw_resp_frames.c common/resp.c common/alloc.c \
                                 common/strnum.c common/panic.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Icommon $(filter %.c,$^) -o $@

$(BUILD)/tools/draw_wheel_cascade: tests/tools/draw_wheel_cascade.c steps/06-timewheel/timewheel.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Isteps/06-timewheel $(filter %.c,$^) -o $@

$(BUILD)/tools/draw_rdb_bytes: tests/tools/draw_rdb_bytes.c steps/08-snapshot/rdb.c common/alloc.c \
                               common/strnum.c common/panic.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Icommon -Isteps/08-snapshot $(filter %.c,$^) -o $@

.PHONY: pictures pictures-check
REPL_CAPTURE := docs/img/09-replication-capture.txt

pictures: $(PICTURE_TOOLS) $(BUILD)/09-replication/server
	@python3 tests/tools/record_replication.py $(BUILD)/09-replication/server $(REPL_CAPTURE); \
	  status=$$?; [ $$status -eq 0 ] || [ $$status -eq 2 ]
	@bash tests/tools/pictures_check.sh --write $(BUILD)/tools

pictures-check: $(PICTURE_TOOLS)
	@bash tests/tools/pictures_check.sh $(BUILD)/tools
