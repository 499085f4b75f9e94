// SPDX-License-Identifier: GPL-2.0
/*
 * sgfuzz - attack the kernel's SCSI command filter from user space.
 *
 *   sgfuzz cdb [-s SEED] [-t SECONDS] [-n COUNT] [-l LOG] [-c COVERAGE]
 *              [-m FD] HCTL...
 *	As an unprivileged user: random CDBs (biased toward the opcodes and
 *	service actions the policies name), random header fields, random entry
 *	points, node kinds and open modes, on the given devices. Each verdict
 *	the kernel reports in the device's cmd_filter/allowed and denied
 *	counters is compared with the default policy document's answer
 *	(tools/sgfilter's model, generated from policy/default.policy). With
 *	-m, writes "sgfz B n" and "sgfz E n" to trace_marker (descriptor FD,
 *	opened by root) around each call, so that tests/fuzz/trace-check can
 *	match what the SCSI midlayer dispatched with each call; -l logs one
 *	line per call for it.
 *
 *   sgfuzz sysfs [-s SEED] [-n COUNT] HCTL...
 *	As root: random and adversarial writes to the cmd_filter/ files. A
 *	rejected write must leave every file byte-identical; an accepted one
 *	must read back as the model says the kernel applies it.
 *
 *   sgfuzz hammer [-s SEED] [-t SECONDS] GLOB...
 *	As an unprivileged user, for the race tests: SG_IO on whatever nodes
 *	match GLOB (found again every half second, kept open across device
 *	removal). TEST UNIT READY and INQUIRY, in every policy the rewriter
 *	writes, must never be refused; WRITE BUFFER and opcode 0xc1, in none,
 *	must never reach a device.
 *
 *   sgfuzz rewrite [-s SEED] [-t SECONDS] HCTL...
 *	As root, for the race tests: rewrite and reset the devices' policies
 *	as fast as possible, keeping TEST UNIT READY and INQUIRY readable and
 *	never allowing WRITE BUFFER or 0xc1.
 *
 * Every mode ends with "key=value" lines on standard output. Exit status:
 * 0 no finding, 1 a finding (the output says which), 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/bsg.h>
#include <linux/cdrom.h>
#include <poll.h>
#include <scsi/scsi_ioctl.h>
#include <scsi/sg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sgfilter.h"

/* newer than glibc's <scsi/sg.h> (the kernel's include/scsi/sg.h has them) */
#ifndef SG_DXFER_UNKNOWN
#define SG_DXFER_UNKNOWN	(-5)
#endif
#ifndef SG_FLAG_MMAP_IO
#define SG_FLAG_MMAP_IO		4
#endif
#ifndef SG_FLAG_Q_AT_TAIL
#define SG_FLAG_Q_AT_TAIL	0x10
#define SG_FLAG_Q_AT_HEAD	0x20
#endif

/* SGFUZZ_SYSFS and SGFUZZ_DEV move both trees, for the host's tests */
static const char *sysfs_devices = "/sys/bus/scsi/devices";
static const char *dev_dir = "/dev";
#define MAX_DEVS	32
#define MAX_CDB		260
#define ARENA_SIZE	(2 << 20)
#define PAGE		4096
#define SENSE_MAX	255

/* ------------------------------------------------------------------ */
/* randomness: xorshift64*, reproducible from the seed */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned int rnd(unsigned int n)
{
	return n ? (unsigned int)(rnd64() % n) : 0;
}

static int chance(unsigned int percent)
{
	return rnd(100) < percent;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "sgfuzz: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

/* ------------------------------------------------------------------ */
/* devices */

enum node_kind { N_UPPER, N_SG, N_BSG, NR_NODES };

struct fdev {
	char hctl[32];
	unsigned int type;
	const char *set;
	struct sgf_policy pol;
	char node[NR_NODES][64];	/* "" if the device has no such node */
	int allowed_fd, denied_fd;	/* the counters, -1 on a kernel without */
	int fds[NR_NODES][3][2];	/* cached: [node][O_ACCMODE][O_NONBLOCK] */
	int scsi_debug;			/* may be given timeouts it cannot meet */
	int next_cmd_len[3][2];		/* SG_NEXT_CMD_LEN pending on a cached sg fd */
};

static struct fdev devs[MAX_DEVS];
static unsigned int nr_devs;

static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* The first entry of a sysfs folder whose name starts with @prefix. */
static int first_entry(const char *dir, const char *prefix, int digit_after,
		       char *out, size_t len)
{
	char pattern[512];
	glob_t g;
	size_t i;
	int ret = -1;

	snprintf(pattern, sizeof(pattern), "%s/%s*", dir, prefix);
	if (glob(pattern, 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc && ret; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		const char *rest = base + strlen(prefix);

		if (digit_after && (!isdigit((unsigned char)*rest) ||
				    strspn(rest, "0123456789") != strlen(rest)))
			continue;
		snprintf(out, len, "%s/%s", dev_dir, base);
		ret = 0;
	}
	globfree(&g);
	return ret;
}

static void add_device(const char *hctl)
{
	struct fdev *d;
	char dir[256], path[320], buf[64];
	int k, m, b;

	if (nr_devs == MAX_DEVS)
		die("more than %s devices", "32");
	d = &devs[nr_devs++];
	memset(d, 0, sizeof(*d));
	snprintf(d->hctl, sizeof(d->hctl), "%s", hctl);
	snprintf(dir, sizeof(dir), "%s/%.40s", sysfs_devices, hctl);
	snprintf(path, sizeof(path), "%s/type", dir);
	if (read_small(path, buf, sizeof(buf)) < 0)
		die("no device %s", hctl);
	d->type = (unsigned int)strtoul(buf, NULL, 0);
	d->set = sgf_set_of_type(d->type);
	if (sgf_default_policy(d->set, &d->pol))
		die("no default policy for set %s", d->set);
	snprintf(path, sizeof(path), "%s/vendor", dir);
	d->scsi_debug = read_small(path, buf, sizeof(buf)) > 0 && !strncmp(buf, "Linux", 5);
	snprintf(path, sizeof(path), "%s/block", dir);
	if (first_entry(path, "", 0, d->node[N_UPPER], 64)) {
		snprintf(path, sizeof(path), "%s/scsi_tape", dir);
		if (first_entry(path, "st", 1, d->node[N_UPPER], 64)) {
			snprintf(path, sizeof(path), "%s/scsi_changer", dir);
			first_entry(path, "sch", 1, d->node[N_UPPER], 64);
		}
	}
	snprintf(path, sizeof(path), "%s/scsi_generic", dir);
	first_entry(path, "sg", 1, d->node[N_SG], 64);
	snprintf(d->node[N_BSG], 64, "%s/bsg/%.40s", dev_dir, hctl);
	snprintf(path, sizeof(path), "%s/cmd_filter/allowed", dir);
	d->allowed_fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/cmd_filter/denied", dir);
	d->denied_fd = open(path, O_RDONLY);
	for (k = 0; k < NR_NODES; k++)
		for (m = 0; m < 3; m++)
			for (b = 0; b < 2; b++)
				d->fds[k][m][b] = -1;
}

static long counter(int fd)
{
	char buf[32];
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* ------------------------------------------------------------------ */
/* the calls: every way into the filter */

enum call { C_V3_IOCTL, C_SIC, C_PACKET, C_V3_WRITE, C_V2_WRITE, C_V4_BSG, NR_CALLS };
static const char *const call_names[] = {
	"sgio-v3", "send-command", "send-packet", "write-v3", "write-v2", "bsg-v4",
};

/* the kernel's enum scsi_cmd_entry, as the tracepoint names it */
enum kentry { K_SG_IO, K_SEND_COMMAND, K_SEND_PACKET, K_SG_WRITE, K_BSG, NR_KENTRIES };
static const char *const kentry_names[] = {
	"SG_IO", "SEND_COMMAND", "SEND_PACKET", "SG_WRITE", "BSG",
};

static unsigned char *arena;	/* ARENA_SIZE bytes, then a PROT_NONE page */
static unsigned char *guard;

/* A pointer for the kernel to read or write @len bytes at: mostly good. */
static void *some_pointer(size_t len, int *good)
{
	static void *const bad[] = {
		NULL, (void *)16, (void *)0xffffffff81000000UL,
		(void *)0x00007ffffffff000UL,
	};

	*good = 0;
	if (chance(3))
		return bad[rnd(4)];
	if (chance(3))	/* runs into the guard page */
		return guard - (len ? rnd((unsigned int)(len < PAGE ? len : PAGE)) : 0);
	*good = 1;
	if (len >= ARENA_SIZE / 2)
		return arena;
	return arena + ARENA_SIZE / 2 + rnd((unsigned int)(ARENA_SIZE / 2 - len));
}

static unsigned int some_length(void)
{
	switch (rnd(10)) {
	case 0:
		return 0;
	case 1:
		return rnd(4) ? rnd(1 << 20) : (unsigned int)rnd64();
	case 2:
		return 512 * (1 + rnd(128));
	default:
		return rnd(rnd(2) ? 256 : 8192);
	}
}

/*
 * Timeouts of under a second only for scsi_debug: on QEMU's devices under
 * TCG a command can take longer, and SCSI error handling then holds every
 * device of the host for minutes, which fuzzes QEMU rather than the filter.
 */
static int short_timeouts;

static unsigned int some_timeout_ms(void)
{
	if (short_timeouts && chance(2))
		return 20 + rnd(100);
	if (chance(5))
		return 0;
	return 2000 + rnd(8000);
}

/* Opcodes worth hitting more often than chance: every one the policies name. */
static unsigned char named_ops[256];
static unsigned int nr_named_ops;

static void collect_named_ops(void)
{
	static const char *const sets[] = { "sbc", "mmc", "ssc", "smc", "scanner", "other" };
	unsigned char seen[256] = { 0 };
	struct sgf_policy p;
	size_t i, s;

	for (s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		if (sgf_default_policy(sets[s], &p))
			continue;
		for (i = 0; i < p.n; i++)
			seen[p.e[i].opcode] = 1;
	}
	/* and the privileged ones with service actions in SPC and SBC */
	seen[0x3b] = seen[0x5e] = seen[0x5f] = seen[0x7f] = seen[0x83] = 1;
	seen[0x84] = seen[0x9e] = seen[0x9f] = seen[0xa3] = seen[0xa4] = 1;
	seen[0x48] = seen[0x42] = seen[0x04] = seen[0xa1] = seen[0x85] = 1;
	for (i = 0; i < 256; i++)
		if (seen[i])
			named_ops[nr_named_ops++] = (unsigned char)i;
}

static unsigned int group_len(unsigned char op)
{
	static const unsigned char by_group[8] = { 6, 10, 10, 12, 16, 12, 10, 10 };

	return by_group[op >> 5];
}

/* A CDB for device @d; returns the length a caller would normally give. */
static unsigned int make_cdb(const struct fdev *d, unsigned char *cdb)
{
	const struct sgf_entry *e;
	unsigned int i, len;
	unsigned char op;

	for (i = 0; i < MAX_CDB; i++)
		cdb[i] = chance(60) ? 0 : (unsigned char)rnd64();
	op = chance(75) ? named_ops[rnd(nr_named_ops)] : (unsigned char)rnd64();
	cdb[0] = op;
	/* often a field value the device's policy has a rule on */
	if (chance(60)) {
		for (i = 0; i < 4; i++) {
			e = &d->pol.e[rnd((unsigned int)d->pol.n)];
			if (e->mask)
				break;
		}
		if (e->mask && (chance(70) || e->opcode == op)) {
			cdb[0] = op = e->opcode;
			if (e->width == 2) {
				cdb[e->offset] = (unsigned char)(e->value >> 8);
				cdb[e->offset + 1] = (unsigned char)e->value;
			} else {
				cdb[e->offset] = (unsigned char)((cdb[e->offset] & ~e->mask) |
								 e->value);
			}
		}
	} else if (chance(50)) {
		cdb[1] = (unsigned char)(cdb[1] & 0xe0) | (unsigned char)rnd(0x20);
	}
	if (op == 0x7f)
		cdb[7] = (unsigned char)(group_len(op) - 8);
	len = op == 0x7f ? 32 : group_len(op);
	switch (rnd(12)) {
	case 0:
		return rnd(6);
	case 1:
		return rnd(MAX_CDB + 1);
	case 2:
		return 16;
	case 3:
		return 12;
	default:
		return len;
	}
}

/* ------------------------------------------------------------------ */
/* one call of the CDB fuzzer */

struct result {
	int ret;		/* 0 or -1 */
	int err;		/* errno when ret is -1 */
	int reached;		/* the device's answer came back */
	unsigned int klen;	/* the CDB length the kernel's filter sees */
	enum kentry kentry;
	int kcdb_ok;		/* the kernel could read the whole CDB: */
	unsigned char kcdb[MAX_CDB];	/* what it read, before the call */
};

/*
 * Note the CDB the kernel will read at @p (@len bytes), as it is before the
 * call: the device's data may land there afterwards.
 */
static void note_cdb(struct result *r, const void *p, size_t len, const unsigned char *cdb)
{
	const unsigned char *c = p;

	r->kcdb_ok = len <= MAX_CDB &&
		     ((c == cdb) || (c >= arena && c + len <= arena + ARENA_SIZE));
	if (r->kcdb_ok)
		memcpy(r->kcdb, c, len);
}

static int get_fd(struct fdev *d, enum node_kind k, int acc, int nb, int *flags)
{
	static const int accs[3] = { O_RDONLY, O_WRONLY, O_RDWR };
	int *slot = &d->fds[k][acc][nb];
	int m, b;

	*flags = accs[acc] | (nb ? O_NONBLOCK : 0);
	/* st waits up to two minutes for a medium on a blocking open (the
	 * fuzzer unloads the tape now and then): tape nodes never block */
	if (k == N_UPPER && d->type == 1)
		*flags |= O_NONBLOCK;
	if (*slot >= 0 && chance(2)) {
		close(*slot);
		*slot = -1;
	}
	if (*slot < 0) {
		*slot = open(d->node[k], *flags | O_CLOEXEC);
		if (*slot < 0 && errno == EBUSY) {
			/* st: one open at a time; close the others and retry */
			for (m = 0; m < 3; m++)
				for (b = 0; b < 2; b++)
					if (d->fds[k][m][b] >= 0) {
						close(d->fds[k][m][b]);
						d->fds[k][m][b] = -1;
					}
			*slot = open(d->node[k], *flags | O_CLOEXEC);
		}
		if (k == N_SG)
			d->next_cmd_len[acc][nb] = 0;
	}
	return *slot;
}

static void drop_fd(struct fdev *d, enum node_kind k, int acc, int nb)
{
	if (d->fds[k][acc][nb] >= 0)
		close(d->fds[k][acc][nb]);
	d->fds[k][acc][nb] = -1;
}

static void fill_iovec(struct sg_iovec *iov, unsigned int count, unsigned int total)
{
	unsigned int i, left = total;
	int good;

	for (i = 0; i < count; i++) {
		unsigned int n = i + 1 == count ? left : rnd(left + 1);

		if (chance(5))
			n = some_length();
		iov[i].iov_len = n;
		iov[i].iov_base = some_pointer(n, &good);
		left -= n <= left ? n : left;
	}
}

static void fill_v3(struct sg_io_hdr *h, unsigned char *cdb, unsigned int cdb_len,
		    struct result *r)
{
	static const int dirs[] = { SG_DXFER_NONE, SG_DXFER_TO_DEV, SG_DXFER_FROM_DEV,
				    SG_DXFER_TO_FROM_DEV, SG_DXFER_UNKNOWN };
	static const unsigned int flag_bits[] = { SG_FLAG_DIRECT_IO, SG_FLAG_NO_DXFER,
						  SG_FLAG_Q_AT_TAIL, SG_FLAG_Q_AT_HEAD, 2 };
	struct sg_iovec *iov = (struct sg_iovec *)arena;
	unsigned int i;
	int good;

	memset(h, 0, sizeof(*h));
	h->interface_id = chance(97) ? 'S' : (int)rnd64();
	h->dxfer_direction = chance(95) ? dirs[rnd(5)] : (int)rnd64();
	h->cmd_len = (unsigned char)(cdb_len > 255 ? 255 : cdb_len);
	h->cmdp = cdb;
	(void)r;
	if (chance(2))
		h->cmdp = some_pointer(cdb_len, &good);
	h->mx_sb_len = (unsigned char)(chance(80) ? 32 : rnd(SENSE_MAX + 1));
	h->sbp = chance(90) ? arena + PAGE : some_pointer(h->mx_sb_len, &good);
	h->dxfer_len = some_length();
	if (chance(10)) {
		h->iovec_count = (unsigned short)(chance(90) ? 1 + rnd(8) : rnd64());
		fill_iovec(iov, h->iovec_count < 64 ? h->iovec_count : 64, h->dxfer_len);
		h->dxferp = chance(95) ? (void *)iov : some_pointer(64, &good);
	} else {
		h->dxferp = some_pointer(h->dxfer_len, &good);
	}
	h->timeout = some_timeout_ms();
	for (i = 0; i < 5; i++)
		if (chance(4))
			h->flags |= flag_bits[i];
	if (chance(1))
		h->flags = (unsigned int)rnd64() & ~SG_FLAG_MMAP_IO;
	h->pack_id = (int)rnd64();
	h->usr_ptr = (void *)(uintptr_t)rnd64();
}

/* Wait for and read the answer to a write() on sg; 0 if it came. */
static int sg_collect(int fd, void *buf, size_t len, unsigned int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, (int)(timeout_ms ? timeout_ms : 60000) + 2000) <= 0)
		return -1;
	return read(fd, buf, len) < 0 ? -1 : 0;
}

static void call_v3_ioctl(int fd, unsigned char *cdb, unsigned int len, struct result *r)
{
	struct sg_io_hdr h;

	fill_v3(&h, cdb, len, r);
	r->klen = h.cmd_len;
	r->kentry = K_SG_IO;
	note_cdb(r, h.cmdp, h.cmd_len, cdb);
	r->ret = ioctl(fd, SG_IO, &h);
	r->err = r->ret ? errno : 0;
	r->reached = !r->ret;
}

/*
 * What sg_write() makes of @count bytes at @buf when their sg_header has a
 * reply_len of 0 or more: the old interface, whatever the caller meant.
 * The CDB follows the header; its length is a pending SG_NEXT_CMD_LEN, or
 * 12 for a vendor opcode with twelve_byte, or the opcode group's.
 */
static void old_interface_cdb(const struct fdev *d, int acc, int nb,
			      const unsigned char *buf, size_t count, struct result *r)
{
	const struct sg_header *oh = (const struct sg_header *)buf;
	unsigned char op = buf[sizeof(*oh)];
	unsigned int cmd_size = (unsigned int)d->next_cmd_len[acc][nb];

	if (!cmd_size) {
		cmd_size = group_len(op);
		if (op >= 0xc0 && oh->twelve_byte)
			cmd_size = 12;
	}
	r->klen = cmd_size;
	r->kentry = K_SG_WRITE;
	/* too short for the header and a 6-byte CDB, or for this CDB: EIO first */
	if (count < sizeof(*oh) + 6 || count < sizeof(*oh) + cmd_size)
		r->kcdb_ok = 0;
	else
		note_cdb(r, buf + sizeof(*oh), cmd_size, NULL);
}

/* After an old-interface write(): did the kernel take SG_NEXT_CMD_LEN? */
static void old_interface_done(struct fdev *d, int acc, int nb, size_t count,
			       const struct result *r)
{
	/* it does once past the length checks, the opcode's fetch and the
	 * queue's room; EIO after that is input_size < 0 */
	if (count < sizeof(struct sg_header) + 6)
		return;
	if (r->ret && (r->err == EFAULT || r->err == EDOM || r->err == ENXIO ||
		       r->err == ENODEV))
		return;
	d->next_cmd_len[acc][nb] = 0;
}

/* SG_NEXT_CMD_LEN now and then, before an sg write() */
static void maybe_next_cmd_len(struct fdev *d, int fd, int acc, int nb)
{
	int ncl;

	if (!chance(10))
		return;
	ncl = (int)rnd(300);
	if (!ioctl(fd, SG_NEXT_CMD_LEN, &ncl) && ncl > 0 && ncl <= 252)
		d->next_cmd_len[acc][nb] = ncl;
}

static void call_v3_write(struct fdev *d, int fd, int acc, int nb, unsigned char *cdb,
			  unsigned int len, struct result *r)
{
	/* in the arena: a count past the header reads zeros, not the stack */
	struct sg_io_hdr h, *hp = (struct sg_io_hdr *)(arena + 5 * PAGE);
	size_t count = sizeof(h);
	int old;
	ssize_t n;

	maybe_next_cmd_len(d, fd, acc, nb);
	fill_v3(&h, cdb, len, r);
	r->klen = h.cmd_len;
	r->kentry = K_SG_WRITE;
	if (chance(3))
		count = rnd(sizeof(h) + 8);
	memset(hp, 0, sizeof(h) + 8);
	memcpy(hp, &h, sizeof(h));
	/* sg_header's reply_len is sg_io_hdr's dxfer_direction: a direction of
	 * 0 or more takes the old interface, which reads the CDB elsewhere */
	old = count >= sizeof(struct sg_header) && h.dxfer_direction >= 0;
	if (old)
		old_interface_cdb(d, acc, nb, (unsigned char *)hp, count, r);
	else
		note_cdb(r, h.cmdp, h.cmd_len, cdb);
	n = write(fd, hp, count);
	r->ret = n < 0 ? -1 : 0;
	r->err = n < 0 ? errno : 0;
	if (old)
		old_interface_done(d, acc, nb, count, r);
	if (n < 0)
		return;
	if (sg_collect(fd, &h, sizeof(h), h.timeout)) {
		r->ret = -1;
		r->err = errno ? errno : ETIMEDOUT;
		return;
	}
	r->reached = 1;
}

/* The old sg_header interface: header, CDB and data in one write(). */
static void call_v2_write(struct fdev *d, int fd, int acc, int nb, unsigned char *cdb,
			  struct result *r)
{
	struct sg_header *hp = (struct sg_header *)(arena + 2 * PAGE);
	unsigned int data_len = chance(50) ? 0 : rnd(4096);
	size_t count;
	ssize_t n;

	maybe_next_cmd_len(d, fd, acc, nb);
	memset(hp, 0, sizeof(*hp));
	hp->reply_len = (int)(chance(90) ? sizeof(*hp) + rnd(4096) : rnd64() & 0x7fffffff);
	hp->pack_id = (int)rnd64();
	hp->twelve_byte = chance(20);
	memcpy(hp + 1, cdb, MAX_CDB);
	count = sizeof(*hp) + group_len(cdb[0]) + data_len;
	if (chance(5))
		count = rnd((unsigned int)count + 1);
	old_interface_cdb(d, acc, nb, (unsigned char *)hp, count, r);
	n = write(fd, hp, count);
	r->ret = n < 0 ? -1 : 0;
	r->err = n < 0 ? errno : 0;
	old_interface_done(d, acc, nb, count, r);
	if (n < 0)
		return;
	if (sg_collect(fd, hp, sizeof(*hp) + 4096, 60000)) {
		r->ret = -1;
		r->err = errno ? errno : ETIMEDOUT;
		return;
	}
	r->reached = 1;
}

static void call_sic(int fd, unsigned char *cdb, struct result *r)
{
	unsigned int *buf;
	unsigned int inlen = chance(60) ? 0 : rnd(chance(90) ? 4096 : 1 << 20);
	unsigned int outlen = chance(50) ? 0 : rnd(chance(90) ? 4096 : 1 << 20);
	unsigned int clen = group_len(cdb[0]);
	int good = 1;

	r->kentry = K_SEND_COMMAND;
	r->klen = clen;
	buf = (unsigned int *)(arena + ARENA_SIZE / 4);
	if (chance(3)) {
		buf = some_pointer(8 + clen, &good);
		if (good)	/* the struct's own alignment; the bad ones stay bad */
			buf = (unsigned int *)((uintptr_t)buf & ~(uintptr_t)3);
	}
	if (good) {
		buf[0] = inlen;
		buf[1] = outlen;
		memcpy(buf + 2, cdb, clen);
	}
	note_cdb(r, (unsigned char *)buf + 8, good ? clen : MAX_CDB + 1, cdb);
	r->ret = ioctl(fd, SCSI_IOCTL_SEND_COMMAND, buf);
	r->err = r->ret < 0 ? errno : 0;
	r->reached = r->ret >= 0;
	if (r->ret > 0)
		r->ret = 0;
}

static void call_packet(int fd, unsigned char *cdb, struct result *r)
{
	struct cdrom_generic_command *cgc = (void *)(arena + 3 * PAGE);
	int good;

	r->kentry = K_SEND_PACKET;
	r->klen = CDROM_PACKET_SIZE;
	memset(cgc, 0, sizeof(*cgc));
	memcpy(cgc->cmd, cdb, CDROM_PACKET_SIZE);
	note_cdb(r, cgc->cmd, CDROM_PACKET_SIZE, cdb);
	cgc->buflen = some_length();
	cgc->buffer = some_pointer(cgc->buflen, &good);
	cgc->data_direction = chance(95) ? (unsigned char)rnd(4) : (unsigned char)rnd64();
	cgc->sense = chance(80) ? (void *)(arena + 4 * PAGE) :
				  some_pointer(sizeof(struct request_sense), &good);
	cgc->timeout = (int)(chance(95) ? some_timeout_ms() / 10 : rnd64());
	cgc->quiet = (unsigned char)rnd(2);
	r->ret = ioctl(fd, CDROM_SEND_PACKET, cgc);
	r->err = r->ret ? errno : 0;
	/* EIO with sense data: the device answered CHECK CONDITION */
	r->reached = !r->ret || (r->err == EIO && (arena[4 * PAGE] & 0x70) == 0x70);
	arena[4 * PAGE] = 0;
}

static void call_v4(int fd, unsigned char *cdb, unsigned int len, struct result *r)
{
	struct sg_io_v4 h;
	unsigned int n;
	int good;

	memset(&h, 0, sizeof(h));
	h.guard = chance(97) ? 'Q' : (int)rnd64();
	h.protocol = chance(97) ? BSG_PROTOCOL_SCSI : (unsigned int)rnd(4);
	h.subprotocol = chance(97) ? BSG_SUB_PROTOCOL_SCSI_CMD : (unsigned int)rnd(4);
	h.request_len = chance(98) ? (len > 255 ? 255 : len) : (unsigned int)rnd64();
	h.request = (uintptr_t)cdb;
	if (chance(2))
		h.request = (uintptr_t)some_pointer(h.request_len, &good);
	h.max_response_len = chance(90) ? 32 : rnd(SENSE_MAX + 1);
	h.response = (uintptr_t)(arena + PAGE);
	n = some_length();
	switch (rnd(4)) {
	case 0:
		break;
	case 1:
		h.din_xfer_len = n;
		h.din_xferp = (uintptr_t)some_pointer(n, &good);
		break;
	case 2:
		h.dout_xfer_len = n;
		h.dout_xferp = (uintptr_t)some_pointer(n, &good);
		break;
	default:
		h.din_xfer_len = n;
		h.dout_xfer_len = some_length();
		h.din_xferp = (uintptr_t)some_pointer(n, &good);
		h.dout_xferp = (uintptr_t)some_pointer(h.dout_xfer_len, &good);
		break;
	}
	if (chance(5)) {
		h.din_iovec_count = rnd(4);
		h.dout_iovec_count = rnd(4);
	}
	h.timeout = some_timeout_ms();
	h.flags = chance(90) ? 0 : (unsigned int)rnd64();
	h.usr_ptr = rnd64();
	r->klen = h.request_len;
	r->kentry = K_BSG;
	note_cdb(r, (void *)(uintptr_t)h.request, h.request_len, cdb);
	r->ret = ioctl(fd, SG_IO, &h);
	r->err = r->ret ? errno : 0;
	r->reached = !r->ret;
}

/* ------------------------------------------------------------------ */
/* the CDB fuzzer's bookkeeping */

struct stats {
	unsigned long calls, consulted, allowed, denied, unknown, open_failed;
	unsigned long mismatches, anomalies, violations, overdenials;
	unsigned long per_call[NR_CALLS];
	unsigned long err_count[256];
	unsigned char cov[NR_KENTRIES][256];	/* bit 0 allowed, bit 1 denied */
};

static struct stats st;
static volatile sig_atomic_t hung_seq = -1;
static volatile unsigned long cur_seq;

static void on_alarm(int sig)
{
	static const char msg[] = "sgfuzz: a call hung for 120 s\n";

	(void)sig;
	hung_seq = (sig_atomic_t)cur_seq;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static void marker(int fd, char what, unsigned long seq)
{
	char buf[48];
	int n;

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "sgfz %c %lu\n", what, seq);
	if (write(fd, buf, (size_t)n) < 0)
		fprintf(stderr, "sgfuzz: trace_marker: %s\n", strerror(errno));
}

static void finding(const char *what, unsigned long seq, const struct fdev *d,
		    const struct result *r, int acc, const unsigned char *cdb,
		    const char *detail)
{
	static unsigned int printed;
	unsigned int i;

	if (printed++ >= 20)
		return;
	fprintf(stderr, "sgfuzz: %s: call %lu %s %s %s acc=%d klen=%u ret=%d errno=%s %s cdb=",
		what, seq, d->hctl, d->set, kentry_names[r->kentry], acc, r->klen,
		r->ret, r->err ? strerrorname_np(r->err) : "0", detail);
	for (i = 0; i < (r->klen < 32 ? r->klen : 32); i++)
		fprintf(stderr, "%02x", cdb[i]);
	fprintf(stderr, "\n");
}

static int fuzz_cdb(int argc, char **argv)
{
	double seconds = 60, t0, t_end;
	unsigned long count = 0, seq;
	const char *log_path = NULL, *cov_path = NULL;
	FILE *log = NULL, *cov;
	uint64_t seed = (uint64_t)time(NULL);
	int mark_fd = -1, c, i;
	unsigned char cdb[MAX_CDB];
	double slowest = 0, slowest_open = 0;
	char slowest_what[96] = "none", slowest_open_what[96] = "none";

	while ((c = getopt(argc, argv, "s:t:n:l:c:m:")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atof(optarg); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'l': log_path = optarg; break;
		case 'c': cov_path = optarg; break;
		case 'm': mark_fd = atoi(optarg); break;
		default: return 2;
		}
	}
	if (optind >= argc)
		die("%s", "cdb: no device given");
	for (i = optind; i < argc; i++)
		add_device(argv[i]);
	rng_state = seed ? seed : 1;
	collect_named_ops();
	if (log_path && !(log = fopen(log_path, "w")))
		die("cannot write %s", log_path);
	if (log)
		fprintf(log, "# sgfuzz cdb pid=%d seed=%llu\n", getpid(),
			(unsigned long long)seed);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);

	t0 = now();
	t_end = t0 + seconds;
	for (seq = 1; count ? seq <= count : now() < t_end; seq++) {
		struct fdev *d = &devs[rnd(nr_devs)];
		struct result r = { 0 };
		enum call call = (enum call)rnd(NR_CALLS);
		enum node_kind k;
		int acc = (int)rnd(3), nb = (int)rnd(2), flags, fd, writable;
		long a0, d0, a1, d1;
		const struct sgf_entry *why;
		int short_cdb, expect_allow, observed;
		double t_call;
		enum sgf_class cls;
		unsigned int len;

		cur_seq = seq;
		short_timeouts = d->scsi_debug;
		len = make_cdb(d, cdb);
		switch (call) {
		case C_V3_WRITE:
		case C_V2_WRITE:
			k = N_SG;
			break;
		case C_V4_BSG:
			k = chance(95) ? N_BSG : (enum node_kind)rnd(2);
			break;
		default:
			k = chance(5) ? N_BSG : (enum node_kind)rnd(2);
			break;
		}
		if (!d->node[k][0])
			k = N_SG;
		t_call = now();
		fd = get_fd(d, k, acc, nb, &flags);
		t_call = now() - t_call;
		if (t_call > 2)
			fprintf(stderr, "sgfuzz: opening %s (%s, flags 0%o) took %.1f s\n",
				d->node[k], d->set, flags, t_call);
		if (t_call > slowest_open) {
			slowest_open = t_call;
			snprintf(slowest_open_what, sizeof(slowest_open_what), "%.60s 0%o",
				 d->node[k], flags);
		}
		st.calls++;
		st.per_call[call]++;
		if (fd < 0) {
			st.open_failed++;
			continue;
		}
		writable = (flags & O_ACCMODE) != O_RDONLY;
		a0 = counter(d->allowed_fd);
		d0 = counter(d->denied_fd);
		marker(mark_fd, 'B', seq);
		alarm(120);
		t_call = now();
		switch (call) {
		case C_V3_IOCTL: call_v3_ioctl(fd, cdb, len, &r); break;
		case C_SIC: call_sic(fd, cdb, &r); break;
		case C_PACKET: call_packet(fd, cdb, &r); break;
		case C_V3_WRITE: call_v3_write(d, fd, acc, nb, cdb, len, &r); break;
		case C_V2_WRITE: call_v2_write(d, fd, acc, nb, cdb, &r); break;
		default: call_v4(fd, cdb, len, &r); break;
		}
		alarm(0);
		t_call = now() - t_call;
		marker(mark_fd, 'E', seq);
		if (t_call > slowest) {
			slowest = t_call;
			snprintf(slowest_what, sizeof(slowest_what), "%s %.40s %s",
				 call_names[call], d->hctl, d->set);
		}
		if (t_call > 5)
			fprintf(stderr, "sgfuzz: call %lu (%s on %s, opcode 0x%02x) took %.1f s\n",
				seq, call_names[call], d->hctl, cdb[0], t_call);
		a1 = counter(d->allowed_fd);
		d1 = counter(d->denied_fd);
		st.err_count[r.err & 0xff]++;
		if ((call == C_V3_WRITE || call == C_V2_WRITE) && r.ret)
			drop_fd(d, k, acc, nb);	/* nothing left pending on it */

		/* the model judges the bytes the kernel read (see note_cdb()) */
		if (r.kcdb_ok)
			memcpy(cdb, r.kcdb, r.klen);
		cls = sgf_decide(&d->pol, cdb, r.klen, &why, &short_cdb);
		expect_allow = cls == SGF_READ || (cls == SGF_WRITE && writable);
		if (a0 >= 0 && d0 >= 0 && a1 >= 0 && d1 >= 0) {
			/* the kernel's own account of its verdict */
			if (a1 - a0 + d1 - d0 > 1 || a1 < a0 || d1 < d0) {
				st.anomalies++;
				finding("more than one decision", seq, d, &r, acc, cdb, "");
			}
			observed = a1 > a0 ? 1 : d1 > d0 ? 0 : -1;
			if (observed == 0 && r.err != EPERM) {
				st.anomalies++;
				finding("denied without EPERM", seq, d, &r, acc, cdb, "");
			}
			if (observed == 1 && r.err == EPERM) {
				st.anomalies++;
				finding("EPERM after an allowed decision", seq, d, &r, acc, cdb, "");
			}
		} else {
			/* a kernel without counters: EPERM or the device's answer */
			observed = r.err == EPERM ? 0 : r.reached ? 1 : -1;
		}
		if (observed >= 0 && !r.kcdb_ok && a0 >= 0) {
			st.anomalies++;
			finding("a decision on a CDB the kernel could not read", seq, d, &r,
				acc, cdb, "");
		}
		if (observed < 0 || !r.kcdb_ok) {
			st.unknown++;
		} else {
			st.consulted++;
			if (observed)
				st.allowed++;
			else
				st.denied++;
			st.cov[r.kentry][cdb[0]] |= observed ? 1 : 2;
			if (observed != expect_allow) {
				st.mismatches++;
				if (observed)
					st.violations++;
				else
					st.overdenials++;
				finding(observed ? "allowed, the policy says deny" :
					"denied, the policy says allow", seq, d, &r, acc, cdb,
					writable ? "writable" : "read-only");
			}
		}
		if (log) {
			fprintf(log, "%lu %s %s %s %c %c %s ", seq, d->hctl, d->set,
				kentry_names[r.kentry], expect_allow ? 'A' : 'D',
				observed < 0 ? '-' : observed ? 'A' : 'D',
				r.err ? strerrorname_np(r.err) : "0");
			for (i = 0; i < (int)(r.klen <= 32 ? r.klen : 32); i++)
				fprintf(log, "%02x", cdb[i]);
			fprintf(log, "%s\n", r.klen ? "" : "-");
		}
	}
	t0 = now() - t0;
	if (log)
		fclose(log);

	{
		unsigned int cells = 0, cells_a = 0, cells_d = 0, e, op;
		unsigned long total_calls = st.calls;

		for (e = 0; e < NR_KENTRIES; e++)
			for (op = 0; op < 256; op++) {
				cells += !!st.cov[e][op];
				cells_a += st.cov[e][op] & 1;
				cells_d += !!(st.cov[e][op] & 2);
			}
		printf("seed=%llu\nseconds=%.1f\ncalls=%lu\nrate=%.0f\n",
		       (unsigned long long)seed, t0, total_calls, total_calls / t0);
		printf("consulted=%lu\nallowed=%lu\ndenied=%lu\nnot_consulted=%lu\nopen_failed=%lu\n",
		       st.consulted, st.allowed, st.denied, st.unknown, st.open_failed);
		printf("mismatches=%lu\nviolations=%lu\noverdenials=%lu\nanomalies=%lu\n",
		       st.mismatches, st.violations, st.overdenials, st.anomalies);
		printf("slowest_call=%.2f\nslowest_call_was=%s\n", slowest, slowest_what);
		printf("slowest_open=%.2f\nslowest_open_was=%s\n", slowest_open,
		       slowest_open_what);
		printf("cells=%u\ncells_allowed=%u\ncells_denied=%u\ncells_total=%u\n",
		       cells, cells_a, cells_d, NR_KENTRIES * 256);
		for (i = 0; i < NR_CALLS; i++)
			printf("calls_%s=%lu\n", call_names[i], st.per_call[i]);
		for (i = 0; i < 256; i++)
			if (st.err_count[i] && i)
				printf("errno_%s=%lu\n", strerrorname_np(i), st.err_count[i]);
		if (cov_path && (cov = fopen(cov_path, "w"))) {
			for (e = 0; e < NR_KENTRIES; e++) {
				fprintf(cov, "%-12s ", kentry_names[e]);
				for (op = 0; op < 256; op++)
					fputc(".ad*"[st.cov[e][op]], cov);
				fputc('\n', cov);
			}
			fclose(cov);
		}
	}
	return st.mismatches || st.anomalies ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* sysfs: the policy files */

static const char *const class_files[] = { [SGF_PRIV] = "priv", [SGF_READ] = "read",
					   [SGF_WRITE] = "write" };

struct snapshot {
	char f[5][8192];	/* read, write, priv, custom, cmd_set */
};

static const char *const snap_names[5] = { "read", "write", "priv", "custom", "cmd_set" };

static int snap(const char *hctl, struct snapshot *s)
{
	char path[256];
	int i;

	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%.40s/cmd_filter/%s", sysfs_devices, hctl,
			 snap_names[i]);
		if (read_small(path, s->f[i], sizeof(s->f[i])) < 0)
			return -1;
	}
	return 0;
}

/* The kernel's isspace(): its ctype also counts 0xa0 (Latin-1 NBSP). */
static int kspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

#define KMAX_ENTRIES (256 + 128)
#define KMAX_RULES 128

/*
 * What the kernel makes of @text written to class file @cls of a device
 * whose policy is @cur: 0 and the new policy in @out, or -EINVAL/-E2BIG.
 */
static int model_store(const struct sgf_policy *cur, enum sgf_class cls,
		       const char *text, size_t len, struct sgf_policy *out)
{
	struct sgf_entry e[KMAX_ENTRIES];
	char tok[64];
	size_t i = 0, j, n = 0, fields = 0, t;

	if (memchr(text, '\0', len))
		return -EINVAL;
	while (i < len) {
		if (kspace((unsigned char)text[i])) {
			i++;
			continue;
		}
		for (t = i; t < len && !kspace((unsigned char)text[t]); t++)
			;
		if (n == KMAX_ENTRIES)
			return -E2BIG;
		if (t - i >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, text + i, t - i);
		tok[t - i] = '\0';
		if (sgf_parse_token(tok, &e[n]))
			return -EINVAL;
		if (cls == SGF_PRIV && !e[n].mask)
			return -EINVAL;
		e[n++].cls = cls;
		i = t;
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (sgf_same(&e[i], &e[j]))
				return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out->set, cur->set, sizeof(out->set));
	for (i = 0; i < cur->n; i++) {
		if (cur->e[i].cls == cls)
			continue;
		for (j = 0; j < n; j++)
			if (sgf_same(&cur->e[i], &e[j]))
				break;
		if (j < n)
			continue;
		if (n == KMAX_ENTRIES)
			return -E2BIG;
		e[n++] = cur->e[i];
	}
	for (i = 0; i < n; i++)
		fields += !!e[i].mask;
	if (fields > KMAX_RULES)
		return -E2BIG;
	memcpy(out->e, e, n * sizeof(e[0]));
	out->n = n;
	sgf_sort(out);
	return 0;
}

/* The policy the three class files of a snapshot show. */
static int parse_snapshot(const struct snapshot *s, const char *set, struct sgf_policy *p)
{
	char bad[SGF_TOKEN_MAX + 1];

	memset(p, 0, sizeof(*p));
	snprintf(p->set, sizeof(p->set), "%s", set);
	if (sgf_parse_list(p, s->f[0], SGF_READ, bad, sizeof(bad)) ||
	    sgf_parse_list(p, s->f[1], SGF_WRITE, bad, sizeof(bad)) ||
	    sgf_parse_list(p, s->f[2], SGF_PRIV, bad, sizeof(bad)))
		return -1;
	sgf_sort(p);
	return 0;
}

/* kstrtouint(buf, 10) == 1, as reset accepts it. */
static int model_reset_ok(const char *text, size_t len)
{
	size_t i = 0;

	if (len && text[len - 1] == '\n')
		len--;
	if (i < len && text[i] == '+')
		i++;
	if (i == len)
		return 0;
	for (; i < len && text[i] == '0'; i++)
		;
	if (len - i == 1 && text[i] == '1')
		return 1;
	return 0;
}

static const char *random_token(char *buf, size_t len, const struct sgf_policy *cur)
{
	static const char *const broken[] = {
		"0x", "x28", "0X28", "0x2g", "0x123", "28", "0x28/", "0x28/sa=",
		"0x28/sa=0x20", "0x28/sa=0xff", "0x28/sa=0x001", "0x7f/sa=0x10000",
		"0x7f/sa=0x00001", "0xa3/cdb0&0x3f=0x06", "0xa3/cdb32&0x3f=0x06",
		"0xa3/cdb100&0x3f=0x06", "0xa3/cdb10&0x00=0x00", "0xa3/cdb10&0x3f=0x40",
		"0xa3/cdb10&0x3f", "0xa3/cdb10=0x06", "0xa3/cdb&0x3f=0x06",
		"0xa3/cdb10&0x3f=0x06x", "+0x28", "-0x28", "0x28,0x2a", "0x\xc3\xa9",
		"0x28/sa=0x1F", "0xA3/cdb010&0x3F=0x06", "0x28/cdb1&0x1f=0x01",
		"0x7f/cdb8&0xff=0x00", "0x7f/cdb1&0x1f=0x01", "0xa3/cdb31&0xff=0xff",
		"0xa3/cdb099&0x01=0x01", "0x00000000000000028",
	};
	unsigned int op = rnd(256), sa, off, mask;

	switch (rnd(8)) {
	case 0:
		snprintf(buf, len, "0x%02x", op);
		break;
	case 1:
		if (op == 0x7f)
			snprintf(buf, len, "0x7f/sa=0x%04x", rnd(0x10000));
		else
			snprintf(buf, len, "0x%02x/sa=0x%02x", op, rnd(0x20));
		break;
	case 2:
		off = 1 + rnd(31);
		mask = 1 + rnd(255);
		snprintf(buf, len, "0x%02x/cdb%u&0x%02x=0x%02x", op, off, mask,
			 rnd(256) & mask);
		break;
	case 3:
	case 4:
		if (cur->n) {
			sgf_format_token(&cur->e[rnd((unsigned int)cur->n)], buf, len);
			break;
		}
		/* fall through */
	case 5:
		sa = rnd(6);
		snprintf(buf, len, sa ? "0x%x" : "0x%X", op);
		break;
	default:
		snprintf(buf, len, "%s", broken[rnd(sizeof(broken) / sizeof(broken[0]))]);
		break;
	}
	return buf;
}

/* Random text for a class file; returns its length. */
static size_t random_text(char *buf, size_t size, const struct sgf_policy *cur)
{
	static const char *const seps[] = { " ", "\n", "\t", "  ", "\r\n", "\v", "\f",
					    "\xa0", " \n " };
	char tok[64];
	size_t len = 0, n, i;

	switch (rnd(10)) {
	case 0:
		n = 100 + rnd(400);	/* past the limits */
		break;
	case 1:
		n = 0;
		break;
	default:
		n = 1 + rnd(8);
		break;
	}
	if (chance(15))
		len = (size_t)snprintf(buf, size, "%s", seps[rnd(9)]);
	for (i = 0; i < n && len + 80 < size; i++) {
		if (i && chance(5)) {	/* a duplicate */
			size_t start = rnd((unsigned int)len);

			while (start && !kspace((unsigned char)buf[start - 1]))
				start--;
			n = strcspn(buf + start, " \n\t\r\v\f\xa0");
			if (n < sizeof(tok)) {
				memcpy(tok, buf + start, n);
				tok[n] = '\0';
			} else {
				random_token(tok, sizeof(tok), cur);
			}
			n = i + 1 + rnd(8);
		} else {
			random_token(tok, sizeof(tok), cur);
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? seps[rnd(9)] : "", tok);
	}
	if (chance(50))
		len += (size_t)snprintf(buf + len, size - len, "\n");
	if (chance(3) && len)
		buf[rnd((unsigned int)len)] = '\0';	/* an embedded NUL */
	if (chance(2)) {	/* huge */
		while (len + 8 < size && len < 5000)
			len += (size_t)snprintf(buf + len, size - len, " 0x%02x", rnd(256));
	} else if (chance(2) && len < PAGE - 1) {
		/* white space up to the page: 4095 bytes fit, 4096 do not */
		size_t to = PAGE - 1 + rnd(2);

		memset(buf + len, ' ', to - len);
		len = to;
	}
	return len;
}

static int write_attr(const char *hctl, const char *name, const char *text, size_t len,
		      size_t split, int *err2, ssize_t *n1)
{
	char path[256];
	ssize_t n;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%.40s/cmd_filter/%s", sysfs_devices, hctl, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	/* a partial write: two write() calls, each a store of its own */
	n = write(fd, text, split ? split : len);
	ret = n < 0 ? -errno : 0;
	*n1 = n;
	*err2 = 0;
	if (split) {
		ssize_t m = write(fd, text + split, len - split);

		*err2 = m < 0 ? -errno : 0;
	}
	close(fd);
	return ret;
}

static int fuzz_sysfs(int argc, char **argv)
{
	static struct snapshot before, after;
	static struct sgf_policy cur, next, mid;
	static char text[8192], expect[4][8192];
	unsigned long count = 1000, it, accepted = 0, rejected = 0, failures = 0;
	unsigned long resets = 0, partial = 0, e2big = 0, einval = 0;
	uint64_t seed = (uint64_t)time(NULL);
	double t0;
	int c, i;

	while ((c = getopt(argc, argv, "s:n:")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (optind >= argc)
		die("%s", "sysfs: no device given");
	for (i = optind; i < argc; i++)
		add_device(argv[i]);
	rng_state = seed ? seed : 1;
	t0 = now();
	for (it = 0; it < count; it++) {
		struct fdev *d = &devs[rnd(nr_devs)];
		enum sgf_class cls = (enum sgf_class)rnd(3);
		size_t len, split = 0;
		int ret, ret2, want, want2 = 0, reset = chance(8), ok = 1;
		ssize_t n1;

		if (snap(d->hctl, &before) || parse_snapshot(&before, d->set, &cur)) {
			fprintf(stderr, "sgfuzz: %s: cannot read its policy\n", d->hctl);
			return 2;
		}
		if (reset) {
			static const char *const r[] = { "1", "1\n", "+1", "01", "0", "2", "",
							 "1 ", "one", "4294967297", "-1" };
			const char *t = r[rnd(sizeof(r) / sizeof(r[0]))];

			len = strlen(t);
			ret = write_attr(d->hctl, "reset", t, len, 0, &ret2, &n1);
			want = !len ? 0 : model_reset_ok(t, len) ? 0 : -EINVAL;
			if (!want && len)
				sgf_default_policy(d->set, &next);
			else
				next = cur;
			resets++;
		} else {
			len = random_text(text, sizeof(text), &cur);
			if (len > 1 && chance(10)) {
				split = 1 + rnd((unsigned int)len - 1);
				partial++;
			}
			ret = write_attr(d->hctl, class_files[cls], text, len, split, &ret2, &n1);
			if ((split ? split : len) >= PAGE) {
				/* sysfs would cut it to a page: refused */
				want = -E2BIG;
				next = cur;
			} else if (!(split ? split : len)) {
				want = 0;	/* an empty write stores nothing */
				next = cur;
			} else {
				want = model_store(&cur, cls, text, split ? split : len, &next);
				if (want)
					next = cur;
			}
			if (split) {
				mid = next;
				if (len - split >= PAGE) {
					want2 = -E2BIG;
				} else {
					want2 = model_store(&mid, cls, text + split, len - split,
							    &next);
					if (want2)
						next = mid;
				}
			}
		}
		if (ret == -ENOENT || ret == -ENODEV) {
			fprintf(stderr, "sgfuzz: %s: gone\n", d->hctl);
			return 2;
		}
		if (ret != want || (split && ret2 != want2)) {
			ok = 0;
			fprintf(stderr, "sgfuzz: %s %s: kernel says %s%s%s, the model %s%s%s\n",
				d->hctl, reset ? "reset" : class_files[cls],
				ret ? strerrorname_np(-ret) : "ok", split ? "+" : "",
				split ? (ret2 ? strerrorname_np(-ret2) : "ok") : "",
				want ? strerrorname_np(-want) : "ok", split ? "+" : "",
				split ? (want2 ? strerrorname_np(-want2) : "ok") : "");
		}
		if (!ret && !reset && len && n1 != (ssize_t)(split ? split : len)) {
			ok = 0;
			fprintf(stderr, "sgfuzz: %s: write() returned %zd of %zu\n", d->hctl,
				n1, split ? split : len);
		}
		if (ret || (split && ret2))
			rejected++;
		else
			accepted++;
		e2big += (ret == -E2BIG) + (ret2 == -E2BIG);
		einval += (ret == -EINVAL) + (ret2 == -EINVAL);
		if (snap(d->hctl, &after)) {
			fprintf(stderr, "sgfuzz: %s: cannot read its policy\n", d->hctl);
			return 2;
		}
		if (ret && (!split || ret2)) {
			/* nothing accepted: byte-identical */
			for (i = 0; i < 5; i++)
				if (strcmp(before.f[i], after.f[i])) {
					ok = 0;
					fprintf(stderr, "sgfuzz: %s: a rejected write changed %s\n",
						d->hctl, snap_names[i]);
				}
		} else {
			sgf_format_class(&next, SGF_READ, expect[0], sizeof(expect[0]));
			sgf_format_class(&next, SGF_WRITE, expect[1], sizeof(expect[1]));
			sgf_format_class(&next, SGF_PRIV, expect[2], sizeof(expect[2]));
			for (i = 0; i < 3; i++) {
				strcat(expect[i], "\n");
				if (strcmp(expect[i], after.f[i])) {
					ok = 0;
					fprintf(stderr, "sgfuzz: %s: %s reads back\n  %.300s  the model says\n  %.300s",
						d->hctl, snap_names[i], after.f[i], expect[i]);
				}
			}
			if (strcmp(after.f[4], before.f[4])) {
				ok = 0;
				fprintf(stderr, "sgfuzz: %s: cmd_set changed\n", d->hctl);
			}
		}
		if (!ok) {
			failures++;
			fprintf(stderr, "sgfuzz:   iteration %lu wrote %zu bytes (split %zu)%s: ",
				it, len, split, reset ? " to reset" : "");
			for (i = 0; !reset && i < (int)len && i < 400; i++)
				fprintf(stderr, isgraph((unsigned char)text[i]) ? "%c" : "\\x%02x",
					(unsigned char)text[i]);
			fprintf(stderr, "\n");
			if (failures > 20)
				break;
		}
	}
	for (i = 0; i < (int)nr_devs; i++) {
		int e2;
		ssize_t n1;

		write_attr(devs[i].hctl, "reset", "1", 1, 0, &e2, &n1);
	}
	t0 = now() - t0;
	printf("seed=%llu\nwrites=%lu\nseconds=%.1f\nrate=%.0f\naccepted=%lu\nrejected=%lu\n"
	       "einval=%lu\ne2big=%lu\nresets=%lu\npartial=%lu\nfailures=%lu\n",
	       (unsigned long long)seed, it, t0, it / t0, accepted, rejected, einval, e2big,
	       resets, partial, failures);
	return failures ? 1 : 0;
}

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

static int hammer(int argc, char **argv)
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

static int rewrite(int argc, char **argv)
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
	if (optind >= argc)
		die("%s", "rewrite: no device given");
	for (i = optind; i < argc; i++)
		add_device(argv[i]);
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

/* ------------------------------------------------------------------ */
/* selftest: the models against what the kernel's code and ABI say */

static int nr_failed;

static void expect(int cond, const char *what)
{
	printf("%s - sgfuzz(host): %s\n", cond ? "ok" : "not ok", what);
	nr_failed += !cond;
}

static int has_token(const struct sgf_policy *p, enum sgf_class cls, const char *tok)
{
	struct sgf_entry e;
	const struct sgf_entry *f;

	return !sgf_parse_token(tok, &e) && (f = sgf_find(p, &e)) && f->cls == cls;
}

static int selftest(void)
{
	static struct sgf_policy sbc, next;
	static char text[8192];
	char tok[SGF_TOKEN_MAX + 1];
	struct sgf_entry e;
	size_t i, len, other_fields = 0;
	int ok = 1;

	expect(kspace(0xa0) && kspace('\v') && kspace(' ') && !kspace(0x85) && !kspace('x'),
	       "the kernel's white space: \\t-\\r, space and 0xa0, not 0x85");
	expect(model_reset_ok("1", 1) && model_reset_ok("1\n", 2) && model_reset_ok("+1", 2) &&
	       model_reset_ok("01", 2), "reset takes 1, 1\\n, +1, 01 (kstrtouint)");
	expect(!model_reset_ok("0", 1) && !model_reset_ok("2", 1) && !model_reset_ok("", 0) &&
	       !model_reset_ok("1 ", 2) && !model_reset_ok("-1", 2) && !model_reset_ok("\n", 1) &&
	       !model_reset_ok("4294967297", 10), "reset refuses 0, 2, empty, '1 ', -1, overflow");
	sgf_default_policy("sbc", &sbc);
	expect(model_store(&sbc, SGF_READ, "0x28 0x28", 9, &next) == -EINVAL,
	       "a token written twice: EINVAL");
	expect(model_store(&sbc, SGF_READ, "0x28\0 0x2a", 10, &next) == -EINVAL,
	       "a NUL byte: EINVAL");
	expect(model_store(&sbc, SGF_PRIV, "0x28", 4, &next) == -EINVAL,
	       "a whole opcode in priv: EINVAL");
	expect(model_store(&sbc, SGF_PRIV, "0xa3/cdb10&0x3f=0x06", 20, &next) == 0 &&
	       has_token(&next, SGF_PRIV, "0xa3/cdb10&0x3f=0x06"), "a field rule in priv: taken");
	expect(model_store(&sbc, SGF_READ, "0x2a\n", 5, &next) == 0 &&
	       has_token(&next, SGF_READ, "0x2a") && !has_token(&next, SGF_READ, "0x28") &&
	       !has_token(&next, SGF_WRITE, "0x2a") && has_token(&next, SGF_WRITE, "0x35"),
	       "writing read replaces the read class; WRITE(10) moves from write to read");
	expect(model_store(&sbc, SGF_READ, "0x28\xa0" "0x2a", 9, &next) == 0 &&
	       has_token(&next, SGF_READ, "0x2a"), "0xa0 separates tokens, as in the kernel");
	for (i = 0; i < sbc.n; i++)
		other_fields += sbc.e[i].mask && sbc.e[i].cls != SGF_READ;
	for (len = 0, i = 0; i < 128 - other_fields; i++)
		len += (size_t)sprintf(text + len, " 0xc0/cdb%zu&0xff=0x%02zx", 2 + i / 200, i);
	expect(model_store(&sbc, SGF_READ, text, len, &next) == 0,
	       "128 field rules in all: taken");
	len += (size_t)sprintf(text + len, " 0xc1/cdb2&0xff=0x00");
	expect(model_store(&sbc, SGF_READ, text, len, &next) == -E2BIG,
	       "129 field rules: E2BIG");
	for (len = 0, i = 0; i < 385; i++)
		len += (size_t)sprintf(text + len, " 0x%02zx", i & 0xff);
	expect(model_store(&sbc, SGF_READ, text, len, &next) == -E2BIG,
	       "385 tokens: E2BIG before the duplicates are found");
	sgf_parse_token("0x12/cdb1&0x1f=0x01", &e);
	sgf_format_token(&e, tok, sizeof(tok));
	expect(!strcmp(tok, "0x12/sa=0x01"), "cdb1&0x1f reads back as sa= (kernel's show)");
	sgf_parse_token("0x7f/cdb1&0x1f=0x01", &e);
	sgf_format_token(&e, tok, sizeof(tok));
	expect(!strcmp(tok, "0x7f/cdb1&0x1f=0x01"), "... but not on opcode 0x7f");
	/* the generators, under the sanitizers */
	rng_state = 42;
	for (i = 0; i < 20000; i++) {
		enum sgf_class cls = (enum sgf_class)rnd(3);
		int ret;

		len = random_text(text, sizeof(text), &sbc);
		ret = model_store(&sbc, cls, text, len, &next);
		ok &= ret == 0 || ret == -EINVAL || ret == -E2BIG;
	}
	expect(ok, "20000 random policy texts through the model");
	return nr_failed ? 1 : 0;
}

/* ------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr,
"usage: sgfuzz cdb [-s SEED] [-t SECONDS] [-n COUNT] [-l LOG] [-c COVERAGE] [-m FD] HCTL...\n"
"       sgfuzz sysfs [-s SEED] [-n COUNT] HCTL...\n"
"       sgfuzz hammer [-s SEED] [-t SECONDS] GLOB...\n"
"       sgfuzz rewrite [-s SEED] [-t SECONDS] HCTL...\n"
"       sgfuzz selftest\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage();
		return 2;
	}
	arena = mmap(NULL, ARENA_SIZE + PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	guard = arena + ARENA_SIZE;
	if (mprotect(guard, PAGE, PROT_NONE))
		die("mprotect: %s", strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("SGFUZZ_SYSFS"))
		sysfs_devices = getenv("SGFUZZ_SYSFS");
	if (getenv("SGFUZZ_DEV"))
		dev_dir = getenv("SGFUZZ_DEV");
	optind = 2;
	if (!strcmp(argv[1], "cdb"))
		return fuzz_cdb(argc, argv);
	if (!strcmp(argv[1], "sysfs"))
		return fuzz_sysfs(argc, argv);
	if (!strcmp(argv[1], "hammer"))
		return hammer(argc, argv);
	if (!strcmp(argv[1], "rewrite"))
		return rewrite(argc, argv);
	if (!strcmp(argv[1], "selftest"))
		return selftest();
	usage();
	return 2;
}
