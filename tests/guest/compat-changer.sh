#!/bin/bash
# Compatibility: tgt's media changer (SMC) driven by mtx through its
# /dev/sg* node, as a member of group "tape" (what udev gives a changer's
# sg node), on both kernels: status, inventory, loaderinfo, load, unload,
# transfer, and the moved cartridge read back in the drive it was loaded
# into. The host compares the outcomes with stock 6.1's
# (tests/host/compat-compare).
. "$(dirname "$0")/lib.sh"
COMPAT_GROUP=tape
chg=$VCHANGER_SG
nst=$VTAPE_NST

# the drive's state, as mtx status shows it ("Full" or "Empty")
drive_state() { mtx -f "$chg" status 2>/dev/null | sed -n 's/^Data Transfer Element 0:\([A-Za-z]*\).*/\1/p'; }
slot_tag() { mtx -f "$chg" status 2>/dev/null | sed -n "s/^ *Storage Element $1:Full *:VolumeTag=\([A-Z0-9]*\).*/\1/p"; }

# Start from the fixture's state: every cartridge in its slot.
if [ "$(drive_state)" = Full ]; then mtx -f "$chg" unload >/dev/null 2>&1 || true; fi

trace_reset
works status "mtx status lists the drive and four barcoded cartridges" mtx -f "$chg" status
n=$(echo "$COMPAT_OUT" | grep -c 'Storage Element [0-9]*:Full *:VolumeTag=SGF00[1-4]L4')
if [ "$n" = 4 ]; then ok status.cartridges "mtx status shows SGF001L4-SGF004L4 in slots 1-4"; else
	not_ok status.cartridges "mtx status shows $n of the 4 cartridges" "$(echo "$COMPAT_OUT" | head -8)"; fi
works inquiry "mtx inquiry identifies the changer" mtx -f "$chg" inquiry
works inventory "mtx inventory (INITIALIZE ELEMENT STATUS)" mtx -f "$chg" inventory
works loaderinfo "loaderinfo reads the element address assignment" loaderinfo -f "$chg"

# A marker written to cartridge 2 proves, read back later, which cartridge
# the drive holds.
works load-2 "mtx load 2 puts SGF002L4 in the drive" mtx -f "$chg" load 2 0
works mt-online "mt status on the drive's nst node after the load" mt -f "$nst" status
marker="sgfilter compat marker SGF002L4"
works write-marker "dd writes a marker block to SGF002L4 through $nst" \
	sh -c "mt -f $nst rewind && printf '%-512s' '$marker' | dd of=$nst bs=512 count=1 2>/dev/null && mt -f $nst weof 1"
works unload-2 "mtx unload returns SGF002L4 to slot 2" mtx -f "$chg" unload 2 0
works load-1 "mtx load 1 puts SGF001L4 in the drive" mtx -f "$chg" load 1 0
works transfer "mtx transfer 2 1 moves SGF002L4 to the emptied slot 1" mtx -f "$chg" transfer 2 1
works unload-1 "mtx unload puts SGF001L4 into slot 2" mtx -f "$chg" unload 2 0
if [ "$(slot_tag 1)" = SGF002L4 ] && [ "$(slot_tag 2)" = SGF001L4 ]; then
	ok transfer.slots "mtx status shows SGF002L4 in slot 1 and SGF001L4 in slot 2"
else
	not_ok transfer.slots "the cartridges are not where the moves put them" "$(mtx -f "$chg" status 2>&1 | head -9)"
fi
works load-moved "mtx load 1 puts the moved SGF002L4 in the drive" mtx -f "$chg" load 1 0
works read-marker "dd reads the marker back from the moved cartridge" \
	sh -c "mt -f $nst rewind && dd if=$nst bs=512 count=1 2>/dev/null"
if [ "$(echo "$COMPAT_OUT" | tr -s ' ' | sed 's/ $//')" = "$marker" ]; then
	ok read-marker.same "the cartridge in the drive is the one the marker was written to"
else
	not_ok read-marker.same "read back '$(echo "$COMPAT_OUT" | head -c 80)' instead of the marker"
fi
works unload-moved "mtx unload returns it to slot 1" mtx -f "$chg" unload 1 0
commands_check VCHANGER smc
commands_check VTAPE ssc
finish_suite
