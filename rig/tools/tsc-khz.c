// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 200 ms.
 *
 * QEMU's TCG gives a guest the host's TSC (cpu_get_host_ticks()), and a
 * guest without HPET or ACPI PM timer cannot always calibrate it against
 * the PIT under TCG: it then marks the TSC unstable and keeps jiffies as
 * its clock, too coarse for the benchmark. rig/boot passes this figure as
 * tsc_early_khz= so that the guest needs no calibration.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

int main(void)
{
	uint64_t t0, t1, c0, c1, khz[3], t;
	int i;

	/* the median of three: a preempted measurement reads low or high */
	for (i = 0; i < 3; i++) {
		t0 = now_ns();
		c0 = __rdtsc();
		do
			t1 = now_ns();
		while (t1 - t0 < 200000000u);
		c1 = __rdtsc();
		khz[i] = (c1 - c0) * 1000000u / (t1 - t0);
	}
	if (khz[0] > khz[1])
		t = khz[0], khz[0] = khz[1], khz[1] = t;
	if (khz[1] > khz[2])
		t = khz[1], khz[1] = khz[2], khz[2] = t;
	if (khz[0] > khz[1])
		t = khz[0], khz[0] = khz[1], khz[1] = t;
	if (!khz[1]) {
		fprintf(stderr, "tsc-khz: the TSC did not advance\n");
		return 1;
	}
	printf("%llu\n", (unsigned long long)khz[1]);
	return 0;
}
