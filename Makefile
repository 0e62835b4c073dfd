# SPDX-License-Identifier: GPL-2.0
#
# pvple top-level Makefile.
#
#   make                build kvm-pvple.ko against KDIR (the running kernel)
#   make check          all tests in the nested test host (see README)
#   make check-debug    the selftests again, in a debug L1 kernel (lockdep, KASAN)
#   make check-mutants  each guarded fix reverted alone: its selftest must fail
#   make demo           boot the test host and show what the module observes
#   make bench          the benchmarks (bench-guests: the Linux-guest one)
#   make bench-host     the Linux-guest benchmark on a real KVM host
#   make unit           userspace unit tests of the pure logic only
#   make selftests      build the KVM selftests (needs KSRC, a 6.12 tree)
#   make deb            the Debian package kvm-pvple-dkms, in build/deb

KDIR ?= /lib/modules/$(shell uname -r)/build
KSRC ?=
PWD := $(CURDIR)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

fixture:
	$(MAKE) -C $(KDIR) M=$(PWD)/selftests/fixture modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean 2>/dev/null || true
	$(MAKE) -C $(KDIR) M=$(PWD)/selftests/fixture clean 2>/dev/null || true
	$(MAKE) -C selftests/unit clean
	$(MAKE) -C selftests/kvm clean

unit:
	$(MAKE) -C selftests/unit run

selftests:
	$(MAKE) -C selftests/kvm KSRC=$(KSRC)

check:
	scripts/testhost/check.sh

check-debug:
	PVPLE_L1=debug scripts/testhost/check.sh

check-mutants:
	scripts/testhost/mutants.sh

demo:
	scripts/testhost/demo.sh

bench:
	scripts/testhost/bench.sh

# The Linux-guest part of "make bench" alone.
bench-guests:
	PVPLE_BENCH_ONLY=guests scripts/testhost/bench.sh

# The same Linux-guest benchmark on a real KVM host with PLE (root).
# "make bench-host DRY_RUN=1" checks it and prints the plan, without KVM.
bench-host:
	scripts/bench-host.sh $(if $(DRY_RUN),--dry-run)

guest-check:
	scripts/guest/check.sh

selfcheck:
	scripts/testhost/selfcheck.sh

checkpatch:
	scripts/checkpatch.sh

# The Debian package kvm-pvple-dkms (dh-dkms), in build/deb.
deb:
	scripts/deb.sh

.PHONY: all modules fixture clean unit selftests check check-debug check-mutants demo bench bench-guests bench-host \
	guest-check selfcheck checkpatch deb
