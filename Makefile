# sluice build. `make` builds ./sluice; `make demo` and `make test` first
# install what is missing (scripts/bootstrap.sh), then build and run.
# SAN=1 builds everything with AddressSanitizer and UBSan into build/san.

DEPS     ?= .deps
DUCKDB   := $(DEPS)/duckdb
SAN      ?= 0

ifeq ($(SAN),1)
BUILD    := build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT      := -O1
else
BUILD    := build/release
SANFLAGS :=
OPT      := -O2
endif

CC       ?= cc
CPPFLAGS := -Isrc -I$(DUCKDB)/include -I/usr/include/postgresql -D_GNU_SOURCE -DSLUICE_VERSION=\"0.1.0\"
CFLAGS   := -std=c11 $(OPT) -g -Wall -Wextra -Werror -Wno-missing-field-initializers \
            $(SANFLAGS)
LDFLAGS  := $(SANFLAGS) -L$(DUCKDB)/lib -Wl,-rpath,'$$ORIGIN/$(DUCKDB)/lib' \
            -Wl,-rpath,$(abspath $(DUCKDB))/lib
# the libraries are plain Debian -dev packages: no pkg-config lookup, which
# would run before scripts/bootstrap.sh has installed them
LDLIBS   := -lduckdb -lpq -lyaml -ljansson -lcrypto -lmicrohttpd -lcurl -lrdkafka -lpthread -lm

LIB_SRC  := $(sort $(wildcard src/*/*.c))
# the UI's files (web/), embedded into the binary: tools/webembed writes
# them into one C file of bytes, paths, content types and ETags
WEB_FILES := $(sort $(shell find web -type f ! -name '.*'))
WEB_C    := $(BUILD)/gen/web_assets.c
WEBEMBED := $(BUILD)/gen/webembed
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(WEB_C:.c=.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(filter-out tests/tools/faultfs.c,$(sort $(wildcard tests/tools/*.c)))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
# preloaded into sluice by the fault tests (LD_PRELOAD)
FAULTFS  := $(BUILD)/tools/faultfs.so
BIN      := $(BUILD)/sluice

.PHONY: all deps demo test unit e2e bench clean sluice FORCE
.DEFAULT_GOAL := all

all: $(DUCKDB)/STAMP sluice

deps $(DUCKDB)/STAMP:
	@scripts/bootstrap.sh

sluice: $(BIN)
	cp $(BIN) $@

$(BIN): $(BUILD)/src/main.o $(BUILD)/libsluice.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libsluice.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c | $(DUCKDB)/STAMP
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(WEBEMBED): tools/webembed.c
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE $(CFLAGS) -o $@ $< -lcrypto

# rewritten whenever a file under web/ changes, or one is added or removed
# (the list is part of the rule's command, which the .cmd file remembers)
$(WEB_C): $(WEBEMBED) $(WEB_FILES) $(BUILD)/gen/web_files.cmd
	$(WEBEMBED) $@ web $(WEB_FILES)

$(BUILD)/gen/web_files.cmd: FORCE
	@mkdir -p $(dir $@)
	@echo '$(WEB_FILES)' | cmp -s - $@ || echo '$(WEB_FILES)' >$@

$(WEB_C:.c=.o): $(WEB_C)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit -MMD -MP $(LDFLAGS) -o $@ $< \
		$(BUILD)/libsluice.a $(LDLIBS) -lcmocka

$(BUILD)/tools/%: tests/tools/%.c $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(BUILD)/libsluice.a $(LDLIBS)

# Built without sanitizers in either build: it is loaded into a program
# ahead of all its libraries, the sanitizer runtime included, and must not
# need one of its own.
$(FAULTFS): tests/tools/faultfs.c | $(DUCKDB)/STAMP
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl -lpthread

demo: deps all $(BUILD)/tools/kafka_mock
	@scripts/demo.sh ./sluice

unit: deps $(BIN) $(UNIT_BIN)

# the benchmarks built on sluice's library: the tests build them too, so
# that a change of the library's interface cannot leave them behind
BENCH_LIB_BIN := $(addprefix $(BUILD)/bench/,live_chain cdc_apply cdc_stream windows_gate ivm \
	kafka dag_layout)

test: deps $(BIN) $(UNIT_BIN) $(TOOL_BIN) $(FAULTFS) $(BENCH_LIB_BIN)
	@tests/run.sh $(BUILD)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libsluice.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(BUILD)/libsluice.a $(LDLIBS)

# what make bench runs beside sluice (run.sh builds the programs on the
# engine alone itself)
BENCH_BIN := $(BUILD)/bench/cdc_latency $(BENCH_LIB_BIN)

$(BUILD)/bench/cdc_latency: bench/cdc_latency.c bench/raw_pg.h tests/tools/live_status.h | $(DUCKDB)/STAMP
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lpq -lcurl -ljansson -lpthread

bench: deps all $(BUILD)/tools/post_load $(BUILD)/tools/kafka_mock $(BENCH_BIN)
	@bench/run.sh ./sluice

clean:
	rm -rf build sluice

-include $(LIB_OBJ:.o=.d) $(BUILD)/src/main.d $(UNIT_BIN:=.d) $(TOOL_BIN:=.d) $(BENCH_LIB_BIN:=.d)
