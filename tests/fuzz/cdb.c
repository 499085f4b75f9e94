// SPDX-License-Identifier: GPL-2.0
/*
 * sgfuzz cdb: random CDBs, header fields, entry points and open modes as
 * an unprivileged user; each verdict against the policy model. See
 * sgfuzz.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bsg.h>
#include <linux/cdrom.h>
#include <poll.h>
#include <scsi/scsi_ioctl.h>
#include <scsi/sg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bsg_uring.h"
#include "sgfuzz.h"


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

#define SENSE_MAX	255

/* ------------------------------------------------------------------ */
/* the calls: every way into the filter */

enum call {
	C_V3_IOCTL, C_SIC, C_PACKET, C_V3_WRITE, C_V2_WRITE, C_V4_BSG, C_URING, NR_CALLS
};
static const char *const call_names[] = {
	"sgio-v3", "send-command", "send-packet", "write-v3", "write-v2", "bsg-v4", "uring",
};

/* the kernel's enum scsi_cmd_entry, as the tracepoint names it */
enum kentry { K_SG_IO, K_SEND_COMMAND, K_SEND_PACKET, K_SG_WRITE, K_BSG, NR_KENTRIES };
static const char *const kentry_names[] = {
	"SG_IO", "SEND_COMMAND", "SEND_PACKET", "SG_WRITE", "BSG",
};

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
	static const char *const sets[] = {
		"sbc", "mmc", "ssc", "smc", "scanner", "proc", "comm", "printer", "other"
	};
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

/*
 * ATA PASS-THROUGH(16) and (12): the fields the disk health rules read,
 * drawn from the values that matter: every protocol, the transfer bits,
 * commands that read and commands that write, SMART's subcommands, and
 * READ LOG EXT's log-specific field.
 */
static void ata_fields(unsigned char *cdb)
{
	static const unsigned char cmds[] = {
		0xec, 0xa1, 0xb0, 0xe5, 0x2f, 0x47, 0x3f, 0x57, 0xf1, 0xf2,
		0xf4, 0xf6, 0x92, 0xef, 0x30, 0x35, 0x24, 0x25, 0x06,
	};
	static const unsigned char feats[] = {
		0xd0, 0xd1, 0xd2, 0xd4, 0xd5, 0xd6, 0xd8, 0xd9, 0xda, 0xdb,
		0x00, 0x01,
	};
	int twelve = cdb[0] == 0xa1;

	cdb[1] = (unsigned char)(rnd(16) << 1 | (twelve ? 0 : rnd(2)));
	cdb[2] = (unsigned char)rnd(256);
	cdb[twelve ? 3 : 4] = feats[rnd(sizeof(feats))];
	if (!twelve)
		cdb[3] = chance(80) ? 0 : (unsigned char)rnd64();
	cdb[twelve ? 9 : 14] = cmds[rnd(sizeof(cmds))];
}

/*
 * The ATA commands QEMU's IDE disk runs by DMA, and the PIO command that
 * moves data the same way (see make_cdb()).
 */
static const unsigned char qemu_dma_to_pio[256] = {
	[0x06] = 0x34,		/* DATA SET MANAGEMENT (TRIM): WRITE SECTORS EXT */
	[0x25] = 0x24,		/* READ DMA EXT: READ SECTORS EXT */
	[0x35] = 0x34,		/* WRITE DMA EXT: WRITE SECTORS EXT */
	[0xc8] = 0x20,		/* READ DMA: READ SECTORS */
	[0xc9] = 0x21,		/* READ DMA without retries */
	[0xca] = 0x30,		/* WRITE DMA: WRITE SECTORS */
	[0xcb] = 0x31,		/* WRITE DMA without retries */
};

/* A CDB for device @d; returns the length a caller would normally give. */
static unsigned int make_cdb(const struct fdev *d, unsigned char *cdb)
{
	const struct sgf_entry *e;
	const struct sgf_field *f;
	unsigned int i, k, len;
	unsigned char op;

	for (i = 0; i < MAX_CDB; i++)
		cdb[i] = chance(60) ? 0 : (unsigned char)rnd64();
	op = chance(75) ? named_ops[rnd(nr_named_ops)] : (unsigned char)rnd64();
	cdb[0] = op;
	/* often a field value the device's policy has a rule on */
	if (chance(60)) {
		for (i = 0; i < 4; i++) {
			e = &d->pol.e[rnd((unsigned int)d->pol.n)];
			if (e->nr_fields)
				break;
		}
		if (e->nr_fields && (chance(70) || e->opcode == op)) {
			cdb[0] = op = e->opcode;
			/* its fields' values, and now and then one of them not */
			for (k = 0; k < e->nr_fields; k++) {
				f = &e->f[k];
				if (e->nr_fields > 1 && chance(10))
					continue;
				if (f->width == 2) {
					cdb[f->offset] = (unsigned char)(f->value >> 8);
					cdb[f->offset + 1] = (unsigned char)f->value;
				} else {
					cdb[f->offset] = (unsigned char)((cdb[f->offset] & ~f->mask) |
									 f->value);
				}
			}
		}
	} else if (chance(50)) {
		cdb[1] = (unsigned char)(cdb[1] & 0xe0) | (unsigned char)rnd(0x20);
	}
	if ((op == 0x85 || op == 0xa1) && chance(50))
		ata_fields(cdb);
	/*
	 * QEMU's IDE emulation (hw/ide/core.c) runs an ATA command by DMA when
	 * its ide_cmd_table says so, whatever the protocol field says, and
	 * aborts the whole guest (an assertion in ide_dma_cb()) when the PRD
	 * table, the caller's buffer, ends before the sector count does; stock
	 * lets a read-write open send that. To a libata disk those commands
	 * become their PIO twins, so that the fuzzing tests the kernel, not the
	 * emulator; every other field stays random.
	 */
	if (d->libata && (op == 0x85 || op == 0xa1)) {
		unsigned char *ata_cmd = &cdb[op == 0xa1 ? 9 : 14];

		if (qemu_dma_to_pio[*ata_cmd])
			*ata_cmd = qemu_dma_to_pio[*ata_cmd];
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
	if (k == N_SG)
		d->next_cmd_len[acc][nb] = 0;
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

/*
 * After an old-interface write(): one that succeeded took any pending
 * SG_NEXT_CMD_LEN.  One that failed is not modelled: fuzz_cdb() closes the
 * descriptor (drop_fd()), and the kernel's next Sg_fd starts with none.
 */
static void old_interface_done(struct fdev *d, int acc, int nb, const struct result *r)
{
	if (!r->ret)
		d->next_cmd_len[acc][nb] = 0;
}

/* SG_NEXT_CMD_LEN now and then, before an sg write() */
static void maybe_next_cmd_len(struct fdev *d, int fd, int acc, int nb)
{
	int ncl;

	if (!chance(10))
		return;
	ncl = (int)rnd(300);
	/* 0 cancels a pending length; past 252, ENOMEM changes nothing */
	if (!ioctl(fd, SG_NEXT_CMD_LEN, &ncl))
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
		old_interface_done(d, acc, nb, r);
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
	old_interface_done(d, acc, nb, r);
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
	/*
	 * The kernel takes the length from the opcode it finds at the pointer:
	 * a bad pointer into the arena's last bytes may still give it a short
	 * CDB of whatever lies there.
	 */
	if ((unsigned char *)buf >= arena && (unsigned char *)buf + 9 <= arena + ARENA_SIZE) {
		r->klen = group_len(((unsigned char *)buf)[8]);
		note_cdb(r, (unsigned char *)buf + 8, r->klen, NULL);
	} else {
		r->kcdb_ok = 0;
	}
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

/*
 * The data of a bsg command (SG_IO's v4 header, io_uring's command): none,
 * in, out, or both (which bsg refuses), now and then with iovec counts.
 */
static void some_data(__u32 *din_len, __u64 *din, __u32 *din_iov,
		      __u32 *dout_len, __u64 *dout, __u32 *dout_iov)
{
	unsigned int n = some_length();
	int good;

	switch (rnd(4)) {
	case 0:
		break;
	case 1:
		*din_len = n;
		*din = (uintptr_t)some_pointer(n, &good);
		break;
	case 2:
		*dout_len = n;
		*dout = (uintptr_t)some_pointer(n, &good);
		break;
	default:
		*din_len = n;
		*dout_len = some_length();
		*din = (uintptr_t)some_pointer(n, &good);
		*dout = (uintptr_t)some_pointer(*dout_len, &good);
		break;
	}
	if (chance(5)) {
		*din_iov = rnd(4);
		*dout_iov = rnd(4);
	}
}

static void call_v4(int fd, unsigned char *cdb, unsigned int len, struct result *r)
{
	struct sg_io_v4 h;
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
	some_data(&h.din_xfer_len, &h.din_xferp, &h.din_iovec_count,
		  &h.dout_xfer_len, &h.dout_xferp, &h.dout_iovec_count);
	h.timeout = some_timeout_ms();
	h.flags = chance(90) ? 0 : (unsigned int)rnd64();
	h.usr_ptr = rnd64();
	/* 6.1's scsi_bsg_sg_io_fn() stores request_len in the 16-bit
	 * scmd->cmd_len before it checks it: 0x10012 is taken as 18 */
	r->klen = (unsigned short)h.request_len;
	r->kentry = K_BSG;
	note_cdb(r, (void *)(uintptr_t)h.request, r->klen, cdb);
	r->ret = ioctl(fd, SG_IO, &h);
	r->err = r->ret ? errno : 0;
	r->reached = !r->ret;
}

/*
 * io_uring commands on bsg nodes: one ring for the run, opened at the first
 * such call. The kernel decides them as bsg's (its entry BSG). A kernel
 * without io_uring, or whose bsg nodes have no io_uring command (EOPNOTSUPP
 * for a command that has nothing else unsupported), makes the call one the
 * run draws no more.
 */
static struct bsg_ring uring = { .fd = -1 };
static int uring_state;	/* 0 not tried, 1 a ring, -1 no such command */
static const char *const uring_states[] = { "none", "untried", "yes" };

static void call_uring(int fd, int bsg_node, unsigned char *cdb, unsigned int len,
		       struct result *r)
{
	struct bsg_uring_cmd c;
	int32_t res = 0;
	uint64_t res2 = 0;
	int good, ret;

	r->kentry = K_BSG;
	if (!uring_state)
		uring_state = bsg_ring_open(&uring) ? -1 : 1;
	if (uring_state < 0) {
		r->ret = -1;
		r->err = ENOSYS;
		return;
	}
	memset(&c, 0, sizeof(c));
	c.protocol = chance(97) ? BSG_PROTOCOL_SCSI : (uint32_t)rnd(4);
	c.subprotocol = chance(97) ? BSG_SUB_PROTOCOL_SCSI_CMD : (uint32_t)rnd(4);
	c.request_len = chance(98) ? (len > 255 ? 255 : len) : (uint32_t)rnd64();
	c.request = (uintptr_t)cdb;
	if (chance(2))
		c.request = (uintptr_t)some_pointer(c.request_len, &good);
	c.max_response_len = chance(90) ? 32 : rnd(SENSE_MAX + 1);
	c.response = (uintptr_t)(arena + PAGE);
	if (chance(3))
		c.response = (uintptr_t)some_pointer(c.max_response_len, &good);
	some_data(&c.din_xfer_len, &c.din_xferp, &c.din_iovec_count,
		  &c.dout_xfer_len, &c.dout_xferp, &c.dout_iovec_count);
	c.timeout_ms = some_timeout_ms();
	/* the kernel refuses a request_len past its 32-byte CDB before the
	 * filter: any length past it is one such */
	r->klen = c.request_len <= 32 ? c.request_len : 33;
	note_cdb(r, (void *)(uintptr_t)c.request, r->klen, cdb);
	/* now and then straight to io_uring's workers, as a command that
	 * would block is */
	ret = bsg_ring_cmd(&uring, fd, &c, chance(10) ? IOSQE_ASYNC : 0, &res, &res2);
	if (ret) {
		r->ret = -1;
		r->err = -ret;
		return;
	}
	r->ret = res < 0 ? -1 : 0;
	r->err = res < 0 ? -res : 0;
	r->reached = !r->ret;
	if (res == -EOPNOTSUPP && bsg_node && c.protocol == BSG_PROTOCOL_SCSI &&
	    c.subprotocol == BSG_SUB_PROTOCOL_SCSI_CMD && !(c.din_xfer_len && c.dout_xfer_len) &&
	    !c.din_iovec_count && !c.dout_iovec_count)
		uring_state = -1;
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

int fuzz_cdb(int argc, char **argv)
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
	add_devices(argc, argv, "cdb");
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

		/* (a kernel without io_uring on bsg: the other calls) */
		if (call == C_URING && uring_state < 0)
			call = (enum call)rnd(NR_CALLS - 1);
		cur_seq = seq;
		short_timeouts = d->scsi_debug;
		len = make_cdb(d, cdb);
		switch (call) {
		case C_V3_WRITE:
		case C_V2_WRITE:
			k = N_SG;
			break;
		case C_V4_BSG:
		case C_URING:
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
		case C_URING: call_uring(fd, k == N_BSG, cdb, len, &r); break;
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
	if (uring_state > 0)
		bsg_ring_close(&uring);

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
		printf("uring_bsg=%s\n", uring_states[uring_state + 1]);
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

