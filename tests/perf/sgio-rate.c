// SPDX-License-Identifier: GPL-2.0
/*
 * sgio-rate: SG_IO round trips per second to one device, for the
 * performance comparison of the patched and the stock kernel.
 *
 *   sgio-rate [-t SECONDS] tur|read4k|write4k|pread4k DEVICE
 *
 * tur: TEST UNIT READY; read4k: READ(10) of 4 KiB from LBA 0, both with
 * SG_IO, through the command filter. pread4k: the same 4 KiB read with
 * O_DIRECT pread(), through the block layer and sd, not the filter: the
 * yardstick of the machine's speed at that moment. write4k: WRITE(10) of
 * 4 KiB to LBA 2048 with SG_IO, a data-out transfer (the device opened
 * read-write): the kernel copies the data of a caller without
 * CAP_SYS_RAWIO and maps a privileged caller's, so the same command as
 * the user and as root measures the copy. Opens the device read-only
 * (write4k: read-write), repeats for SECONDS (default 2), and prints
 * "cmd=tur ops=N seconds=S rate=R" (R in operations per second).
 * Exit: 0, 1 if a command failed (any error, or a status other than GOOD),
 * 64 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fprintf(stderr, "usage: sgio-rate [-t SECONDS] tur|read4k|write4k|pread4k DEVICE\n");
	return 64;
}

int main(int argc, char **argv)
{
	unsigned char cdb[10] = { 0 }, sense[32];
	static unsigned char buf[4096] __attribute__((aligned(4096)));
	double seconds = 2, t0, t1;
	struct sg_io_hdr h;
	unsigned long ops = 0;
	int fd, opt, read4k, direct = 0, write4k = 0;
	char *end;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't')
			return usage();
		seconds = strtod(optarg, &end);
		if (*end || seconds <= 0 || seconds > 600)
			return usage();
	}
	if (argc - optind != 2)
		return usage();
	if (!strcmp(argv[optind], "tur"))
		read4k = 0;
	else if (!strcmp(argv[optind], "read4k"))
		read4k = 1;
	else if (!strcmp(argv[optind], "write4k"))
		read4k = write4k = 1;
	else if (!strcmp(argv[optind], "pread4k"))
		read4k = direct = 1;
	else
		return usage();
	fd = open(argv[optind + 1], (write4k ? O_RDWR : O_RDONLY) | O_NONBLOCK |
		  (direct ? O_DIRECT : 0));
	if (fd < 0) {
		fprintf(stderr, "sgio-rate: %s: %s\n", argv[optind + 1], strerror(errno));
		return 1;
	}
	if (read4k) {
		cdb[0] = 0x28;		/* READ(10), LBA 0, 8 blocks of 512 */
		cdb[8] = 8;
	}
	if (write4k) {
		cdb[0] = 0x2a;		/* WRITE(10), LBA 2048, 8 blocks of 512 */
		cdb[4] = 0x08;
	}
	memset(&h, 0, sizeof(h));
	h.interface_id = 'S';
	h.cmdp = cdb;
	h.cmd_len = read4k ? 10 : 6;
	h.sbp = sense;
	h.mx_sb_len = sizeof(sense);
	h.dxfer_direction = write4k ? SG_DXFER_TO_DEV :
			    read4k ? SG_DXFER_FROM_DEV : SG_DXFER_NONE;
	h.dxferp = read4k ? buf : NULL;
	h.dxfer_len = read4k ? sizeof(buf) : 0;
	h.timeout = 10000;
	t0 = now();
	do {
		if (direct) {
			ssize_t n = pread(fd, buf, sizeof(buf), 0);

			if (n != (ssize_t)sizeof(buf)) {
				fprintf(stderr, "sgio-rate: pread: %s\n",
					n < 0 ? strerror(errno) : "short read");
				return 1;
			}
			ops++;
			t1 = now();
			continue;
		}
		if (ioctl(fd, SG_IO, &h) < 0) {
			fprintf(stderr, "sgio-rate: SG_IO: %s\n", strerror(errno));
			return 1;
		}
		if (h.status || h.host_status || h.driver_status) {
			fprintf(stderr, "sgio-rate: status 0x%x host 0x%x driver 0x%x\n",
				h.status, h.host_status, h.driver_status);
			return 1;
		}
		ops++;
		t1 = now();
	} while (t1 - t0 < seconds);
	printf("cmd=%s ops=%lu seconds=%.3f rate=%.1f\n", argv[optind], ops,
	       t1 - t0, (double)ops / (t1 - t0));
	close(fd);
	return 0;
}
