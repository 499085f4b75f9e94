#!/bin/bash
# Host side of the burn suite: what landed in tgt's backing files is the ISO,
# byte for byte. Runs after the guest powered off; $1 is the run folder.
run=$1
size=$(stat -c %s "$run/burn.iso")
for b in burn1 burn2; do
	role=${b^^}
	if cmp -n "$size" "$run/burn.iso" "$run/$b.img" >/dev/null 2>&1; then
		echo "ok - burn.host.backing-file.$role: $b.img holds the ISO byte for byte ($size bytes)"
	else
		echo "not ok - burn.host.backing-file.$role: $b.img does not hold the ISO"
		echo "# $(stat -c '%s bytes' "$run/$b.img" 2>&1); $(cmp -n "$size" "$run/burn.iso" "$run/$b.img" 2>&1 | head -1)"
	fi
done
