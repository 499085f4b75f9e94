// SPDX-License-Identifier: GPL-2.0
/*
 * sgfuzz hammer and rewrite: the two sides of the race tests. See sgfuzz.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/bsg.h>
#include <scsi/sg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "sgfuzz.h"

/* ------------------------------------------------------------------ */
/* races: the hammer and the rewriter */

struct hammer_cmd {
	const char *name;
	unsigned char cdb[10];
	unsigned int len;
	int must;	/* 1 never refused, -1 never allowed, 0 either */
};

static const struct hammer_cmd hammer_cmds[] = {
	{ "TEST UNIT READY", { 0x00 }, 6, 1 },
	{ "INQUIRY", { 0x12, 0, 0, 0, 36, 0 }, 6, 1 },
	{ "WRITE BUFFER", { 0x3b, 0x05 }, 10, -1 },
	{ "vendor 0xc1", { 0xc1 }, 10, -1 },
	{ "vendor 0xc0 (toggled)", { 0xc0, 0, 0x11 }, 10, 0 },
	{ "READ CAPACITY(10) (toggled)", { 0x25 }, 10, 0 },
};
#define NR_HAMMER (sizeof(hammer_cmds) / sizeof(hammer_cmds[0]))

int hammer(int argc, char **argv)
{
	unsigned long allowed[NR_HAMMER] = { 0 }, denied[NR_HAMMER] = { 0 };
	unsigned long calls = 0, errors = 0, gone = 0, violations = 0, opens = 0;
	double seconds = 30, t_end, t_scan = 0;
	uint64_t seed = (uint64_t)getpid();
	glob_t g = { 0 };
	int fds[64], c, i, have_glob = 0;
	unsigned char sense[32], data[64];

	while ((c = getopt(argc, argv, "s:t:")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atof(optarg); break;
		default: return 2;
		}
	}
	rng_state = seed ? seed : 1;
	for (i = 0; i < 64; i++)
		fds[i] = -1;
	signal(SIGALRM, on_alarm);
	t_end = now() + seconds;
	while (now() < t_end) {
		const struct hammer_cmd *hc = &hammer_cmds[rnd(NR_HAMMER)];
		unsigned int slot = rnd(64);
		const char *path;
		int ret, err, bsg;

		if (now() > t_scan) {
			if (have_glob)
				globfree(&g);
			memset(&g, 0, sizeof(g));
			for (i = optind; i < argc; i++)
				glob(argv[i], i > optind ? GLOB_APPEND : 0, NULL, &g);
			have_glob = 1;
			t_scan = now() + 0.5;
		}
		if (fds[slot] < 0 || chance(3)) {
			if (!g.gl_pathc)
				continue;
			/* keep the old descriptor open now and then: its device may go */
			if (fds[slot] >= 0 && chance(50))
				close(fds[slot]);
			path = g.gl_pathv[rnd((unsigned int)g.gl_pathc)];
			fds[slot] = open(path, (chance(50) ? O_RDWR : O_RDONLY) | O_NONBLOCK |
					 O_CLOEXEC);
			opens++;
			if (fds[slot] < 0)
				continue;
		}
		bsg = 0;
		{
			char link[64], target[128];
			ssize_t n;

			snprintf(link, sizeof(link), "/proc/self/fd/%d", fds[slot]);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = '\0';
				bsg = !strncmp(target, "/dev/bsg/", 9);
			}
		}
		alarm(120);
		if (bsg) {
			struct sg_io_v4 h;

			memset(&h, 0, sizeof(h));
			h.guard = 'Q';
			h.request = (uintptr_t)hc->cdb;
			h.request_len = hc->len;
			h.response = (uintptr_t)sense;
			h.max_response_len = sizeof(sense);
			h.din_xferp = (uintptr_t)data;
			h.din_xfer_len = hc->cdb[0] == 0x12 ? 36 : 0;
			h.timeout = 10000;
			ret = ioctl(fds[slot], SG_IO, &h);
		} else {
			struct sg_io_hdr h;

			memset(&h, 0, sizeof(h));
			h.interface_id = 'S';
			h.cmdp = (unsigned char *)hc->cdb;
			h.cmd_len = (unsigned char)hc->len;
			h.sbp = sense;
			h.mx_sb_len = sizeof(sense);
			h.dxferp = data;
			h.dxfer_len = hc->cdb[0] == 0x12 ? 36 : 0;
			h.dxfer_direction = h.dxfer_len ? SG_DXFER_FROM_DEV : SG_DXFER_NONE;
			h.timeout = 10000;
			ret = ioctl(fds[slot], SG_IO, &h);
		}
		err = ret ? errno : 0;
		alarm(0);
		calls++;
		if (!ret) {
			allowed[hc - hammer_cmds]++;
			if (hc->must < 0) {
				violations++;
				fprintf(stderr, "sgfuzz: hammer: %s was allowed\n", hc->name);
			}
		} else if (err == EPERM) {
			denied[hc - hammer_cmds]++;
			if (hc->must > 0) {
				violations++;
				fprintf(stderr, "sgfuzz: hammer: %s was refused\n", hc->name);
			}
		} else {
			if (err == ENODEV || err == ENXIO || err == EIO) {
				gone++;
				close(fds[slot]);
				fds[slot] = -1;
			}
			errors++;
		}
	}
	if (have_glob)
		globfree(&g);
	for (i = 0; i < 64; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	printf("calls=%lu\nopens=%lu\nother_errors=%lu\ngone=%lu\nviolations=%lu\n",
	       calls, opens, errors, gone, violations);
	for (i = 0; i < (int)NR_HAMMER; i++)
		printf("cmd_%d=%s allowed %lu denied %lu\n", i, hammer_cmds[i].name,
		       allowed[i], denied[i]);
	return violations ? 1 : 0;
}

int rewrite(int argc, char **argv)
{
	static char text[8192], read_cls[4096];
	unsigned long writes = 0, resets = 0, failed = 0, reads = 0;
	double seconds = 30, t_end;
	uint64_t seed = (uint64_t)getpid();
	int c, i;

	while ((c = getopt(argc, argv, "s:t:")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atof(optarg); break;
		default: return 2;
		}
	}
	add_devices(argc, argv, "rewrite");
	rng_state = seed ? seed : 1;
	t_end = now() + seconds;
	while (now() < t_end) {
		struct fdev *d = &devs[rnd(nr_devs)];
		size_t len = 0;
		int ret, e2;
		ssize_t n1;
		unsigned int k, nrules;

		switch (rnd(5)) {
		case 0:
			ret = write_attr(d->hctl, "reset", "1", 1, 0, &e2, &n1);
			resets++;
			break;
		case 1:
			/* read: TUR and INQUIRY always, READ CAPACITY and 0xc0 sometimes,
			 * with up to 120 field rules so that the policy is big */
			len = (size_t)snprintf(text, sizeof(text), "0x00 0x12%s",
					       chance(50) ? " 0x25" : "");
			nrules = rnd(121);
			for (k = 0; k < nrules; k++)
				len += (size_t)snprintf(text + len, sizeof(text) - len,
							" 0xc0/cdb2&0xff=0x%02x", k == 0 ? 0x11 : k + 0x20);
			ret = write_attr(d->hctl, "read", text, len, 0, &e2, &n1);
			writes++;
			break;
		case 2:
			len = (size_t)snprintf(text, sizeof(text), "0x2a%s",
					       chance(50) ? " 0x35" : "");
			ret = write_attr(d->hctl, "write", text, len, 0, &e2, &n1);
			writes++;
			break;
		case 3:
			len = (size_t)snprintf(text, sizeof(text), "0xc2/sa=0x%02x", rnd(32));
			ret = write_attr(d->hctl, "priv", text, len, 0, &e2, &n1);
			writes++;
			break;
		default: {
			char path[256];

			snprintf(path, sizeof(path), "%s/%.40s/cmd_filter/read", sysfs_devices, d->hctl);
			ret = read_small(path, read_cls, sizeof(read_cls)) < 0 ? -errno : 0;
			reads++;
			break;
		}
		}
		if (ret && ret != -ENOENT && ret != -ENODEV) {
			failed++;
			if (failed < 10)
				fprintf(stderr, "sgfuzz: rewrite %s: %s\n", d->hctl,
					strerrorname_np(-ret));
		}
	}
	for (i = 0; i < (int)nr_devs; i++) {
		int e2;
		ssize_t n1;

		write_attr(devs[i].hctl, "reset", "1", 1, 0, &e2, &n1);
	}
	printf("writes=%lu\nresets=%lu\nreads=%lu\nfailed=%lu\n", writes, resets, reads, failed);
	return failed ? 1 : 0;
}

