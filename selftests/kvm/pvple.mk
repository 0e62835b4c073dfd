# SPDX-License-Identifier: GPL-2.0
# Read after tools/testing/selftests/kvm/Makefile: reuses its CFLAGS,
# LDFLAGS, LDLIBS and LIBKVM_OBJS.

PVPLE_BINS := $(addprefix $(OUTPUT)/pvple/,$(PVPLE_TESTS))
PVPLE_COMMON := $(OUTPUT)/pvple/pvple_util.o
PVPLE_CFLAGS := -I$(PVPLE_DIR) -I$(PVPLE_DIR)/../../include

# A plain program, without the selftest library (whose constructor needs
# kvm.ko loaded): the test host runs it before KVM loads.
PVPLE_TOOLS := $(OUTPUT)/pvple/pvple_pause_cycles

pvple-all: $(PVPLE_BINS) $(PVPLE_TOOLS)

$(PVPLE_TOOLS): $(OUTPUT)/pvple/%: $(PVPLE_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall $< -o $@

$(OUTPUT)/pvple/%.o: $(PVPLE_DIR)/%.c $(PVPLE_DIR)/pvple_util.h $(PVPLE_DIR)/pvple_lock.h \
		      $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PVPLE_CFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c $< -o $@

# pvple_bench's confidence intervals: log(), sqrt(), exp().
$(OUTPUT)/pvple/pvple_bench: LDLIBS += -lm

$(PVPLE_BINS): %: %.o $(PVPLE_COMMON) $(LIBKVM_OBJS)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH) $^ $(LDLIBS) -o $@

.PHONY: pvple-all
