#!/bin/bash
# Can test_policy fail?  Each rule of policy.c's chain step and decision,
# mutated one at a time in a copy, must make test_policy fail; a mutant
# that passes is a rule no unit test checks.  TAP, one line per mutant.
# Needs KSRC (a 6.12 tree, for kselftest.h), as the Makefile does.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
TAP_PREFIX=policy-mutants
. "$top/scripts/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# NAME|sed expression on policy.c
mutants=(
	'a stale first hint ends as the holder|s/return PVPLE_CHAIN_STALE;/return PVPLE_CHAIN_HOLDER;/'
	'a later stale hop keeps its vCPU|s/\*len = i;/*len = i + 1;/'
	'the limit is one vCPU later|s/if (\*len >= PVPLE_CHAIN_MAX)/if (*len > PVPLE_CHAIN_MAX)/'
	'an absent vCPU is followed|s/return PVPLE_CHAIN_ABSENT;/return PVPLE_CHAIN_FOLLOW;/'
	'a holder seen before is a cycle|s/return role == PVPLE_ROLE_HOLDER ? PVPLE_CHAIN_HEAD :/return role != PVPLE_ROLE_HOLDER ? PVPLE_CHAIN_HEAD :/'
	'a head may park|s/return mode_parks(in->mode) \&\& !in->no_park \&\& !in->head \&\&/return mode_parks(in->mode) \&\& !in->no_park \&\&/'
	'a stale hint may park|s/in->end != PVPLE_CHAIN_STALE \&\& in->end != PVPLE_CHAIN_HEAD;/in->end != PVPLE_CHAIN_HEAD;/'
	'a chain ended at a head may park|s/\&\& in->end != PVPLE_CHAIN_HEAD;/;/'
	'the spin limit is off by one|s/in->spins < PVPLE_SPIN_MAX/in->spins <= PVPLE_SPIN_MAX/'
	'a protected guest is not interruptible|s/return state_protected || (rflags \& X86_EFLAGS_IF);/return rflags \& X86_EFLAGS_IF;/'
	'a stale hop is not a hop|s/if (same \&\& holder)/if (0)/'
	'a predecessor on another lock is followed|s/if (!same \&\& !holder)/if (0)/'
	'a hop to a vCPU that names no holder is followed|s/return PVPLE_HOP_NO_HOLDER;/return PVPLE_HOP_NEXT;/'
	'a cross-lock chain ends as the holder|s/return PVPLE_CHAIN_CROSS;/return PVPLE_CHAIN_HOLDER;/'
	'a chain to no holder ends as the holder|s/return PVPLE_CHAIN_NO_HOLDER;/return PVPLE_CHAIN_HOLDER;/'
	'a vCPU not waiting ends as no holder|/case PVPLE_HOP_END:/{n;s/PVPLE_CHAIN_HOLDER/PVPLE_CHAIN_NO_HOLDER/}'
	'an empty slow-path range is accepted|s/if (a->text_start >= a->text_end)/if (a->text_start > a->text_end)/'
	'the end of the slow path is in it|s/return rip >= text_start \&\& rip < text_end;/return rip >= text_start \&\& rip <= text_end;/'
	'a park call in a cycle answers running|s/return in->cycle ? -KVM_EINVAL : PVPLE_PARK_RUNNING;/return PVPLE_PARK_RUNNING;/'
	'a running grant is granted again|s/in->granted/0/g'
	'a step is a new grant|s/^\tif (in->granted)$/\tif (0)/'
	'the need-resched bit counts as a section|s/(in->count \& PVPLE_PREEMPT_COUNT_MASK)/in->count/'
	'a lock waiter is kept|s/if (in->waiting \&\& !in->head)/if (0)/'
	'a queue head is not kept|s/if (in->waiting \&\& !in->head)/if (in->waiting)/'
	'a head that does not know the holder is not kept|s/in->head = r == PVPLE_REC_NO_HOLDER ||/in->head =/'
	'a waiter behind a predecessor is taken for the head|s/PVPLE_WAIT_ROLE(wait) == PVPLE_ROLE_HOLDER);/true);/'
	'the extension ignores its switch|s/if (!in->on)/if (0)/'
	'a shut gate is ignored|s/else if (in->gate != PVPLE_GATE_OPEN)/else if (0)/'
	'the preemption model is not asked|s/if (!e->model_ok)/if (0)/'
	'an RT vCPU thread is granted|s/if (e->rt_task)/if (0)/'
	'a vCPU in a nested guest is granted|s/if (e->nested)/if (0)/'
	'coarse timers are trusted with the bound|s/if (e->resolution_ns > e->bound_ns)/if (0)/'
	'a request given back is extended again|s/if (e->owed)/if (0)/'
	'a step goes on out of its section|s/return d == PVPLE_SLICE_GRANT ?/return d == PVPLE_SLICE_GRANT || d == PVPLE_SLICE_NONE ?/'
	'a step ignores the switch|s/return d == PVPLE_SLICE_GRANT ?/return d == PVPLE_SLICE_GRANT || d == PVPLE_SLICE_OFF ?/'
	'a step keeps a waiter behind another|s/return d == PVPLE_SLICE_GRANT ?/return d == PVPLE_SLICE_GRANT || d == PVPLE_SLICE_WAITING ?/'
	'the guest'"'"'s end is ignored|s/if (in->granted \&\& in->done)/if (0)/'
	'the guest ends what was never granted|s/if (in->granted \&\& in->done)/if (in->done)/'
	'any request to a grant is a step|s/if (in->granted \&\& !in->step)/if (in->granted \&\& 0)/'
	'an idle spinner not taken for a holder keeps its CPU|s/in->rec == PVPLE_REC_IDLE \&\& in->held \&\&/in->rec == PVPLE_REC_IDLE \&\&/'
	'a holder keeps its CPU in mode off|s/if (in->mode != PVPLE_MODE_OFF \&\& in->mode < PVPLE_NR_MODES \&\&/if (in->mode < PVPLE_NR_MODES \&\&/'
)
cflags=(-include stdbool.h -O1 -w -I"$top/include" -I"$top/kvm-pvple" -I"${KSRC:?KSRC: a 6.12 source tree is needed}/tools/testing/selftests")
echo "TAP version 13"
echo "1..${#mutants[@]}"
for m in "${mutants[@]}"; do
	name=${m%%|*} expr=${m#*|}
	sed "$expr" "$top/kvm-pvple/policy.c" >"$tmp/policy.c"
	if cmp -s "$tmp/policy.c" "$top/kvm-pvple/policy.c"; then
		tap_result 1 "$name (the mutation does not apply: fix this test)"
		continue
	fi
	cp "$top/kvm-pvple/policy.h" "$tmp/"
	if ! gcc "${cflags[@]}" -I"$tmp" -o "$tmp/t" "$top/selftests/unit/test_policy.c" \
	     "$tmp/policy.c" "$top/kvm-pvple/policy_hc.c" 2>"$tmp/err"; then
		tap_result 1 "$name (does not build)"
		sed 's/^/# /' "$tmp/err" | head -5
		continue
	fi
	! "$tmp/t" >"$tmp/out" 2>&1
	tap_result $? "$name: caught by $(grep -m1 '^not ok' "$tmp/out" | sed 's/^not ok [0-9]* //')"
done
[ "$tap_failed" = 0 ]
