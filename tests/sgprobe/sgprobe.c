// SPDX-License-Identifier: GPL-2.0
/*
 * sgprobe - send one SCSI command through one chosen kernel entry point and
 * say, in one machine-readable line, whether the kernel's command filter
 * denied it or it reached the device (and what the device answered).
 *
 * sg_raw cannot choose the entry point; the filter must be proven on each of
 * them, so this program can use any of:
 *   sgio    SG_IO (v3 header) on a block, sg, st or ch node
 *   sic     SCSI_IOCTL_SEND_COMMAND
 *   packet  CDROM_SEND_PACKET (12-byte CDB, sr nodes)
 *   sgrw    write() then read() of a v3 header on /dev/sg*
 *   bsg     SG_IO with a v4 header on /dev/bsg/H:C:T:L
 *   uring   io_uring's IORING_OP_URING_CMD on /dev/bsg/H:C:T:L (Linux 7.1
 *           and later; raw system calls, since Debian 12's liburing
 *           predates it); older kernels answer EOPNOTSUPP
 *
 * -M FILE makes the data buffer a read-only shared mapping of FILE (the
 * direction suite: a device must not write into pages its caller can
 * only read), whichever way -i or -o says the data goes; -D asks sg for
 * direct I/O (SG_FLAG_DIRECT_IO), which sg does only with allow_dio set.
 *
 * Exit status: 0 reached the device, status GOOD; 1 reached the device,
 * other status; 2 denied (EPERM); 3 any other OS error; 64 usage error.
 *
 * With -b alone, sgprobe reads one probe per line from standard input, each
 * line the arguments of one run ("-e bsg -m ro /dev/bsg/0:0:0:0 12 00 00 00
 * 24 00"), and prints one result line for each: thousands of probes for
 * the price of one process. A line may begin with a tag, a word that
 * starts with "@"; its result line then begins with the same word. It
 * exits 64 if any line was malformed, else 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <linux/bsg.h>
#include <linux/cdrom.h>
#include <scsi/scsi_ioctl.h>
#include <scsi/sg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bsg_uring.h"

#define EXIT_GOOD	0
#define EXIT_STATUS	1
#define EXIT_DENIED	2
#define EXIT_OSERR	3
#define EXIT_USAGE	64

#define MAX_CDB		260	/* beyond any legal CDB: lets callers test limits */
#define MAX_DATA	(1 << 20)
#define SENSE_LEN	32

enum entry { E_SGIO, E_SIC, E_PACKET, E_SGRW, E_BSG, E_URING };

static const char *const entry_names[] = {
	[E_SGIO] = "sgio", [E_SIC] = "sic", [E_PACKET] = "packet",
	[E_SGRW] = "sgrw", [E_BSG] = "bsg", [E_URING] = "uring",
};

struct probe {
	const char *dev;
	enum entry entry;
	const char *mode_name;
	int oflags;
	uint8_t cdb[MAX_CDB];
	unsigned int cdb_len;
	unsigned int in_len, out_len;
	uint8_t fill;
	const char *data_hex;	/* -d: the bytes to send */
	unsigned int timeout_ms;
	int hexdump;
	int fd;			/* -F: an open descriptor to use, or -1 */
	const char *map_file;	/* -M: the data buffer maps this file */
	int direct_io;		/* -D: SG_FLAG_DIRECT_IO */
};

/* What came back, whatever the entry point. */
struct outcome {
	int err;		/* errno of the failing call, 0 if none */
	int reached;		/* the device answered */
	unsigned int status, host_status, driver_status;
	uint8_t sense[SENSE_LEN];
	unsigned int sense_len;
	int resid;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sgprobe -b   (one probe per line of standard input)\n"
"       sgprobe [-e ENTRY] [-m MODE] [-i LEN | -o LEN] [-f BYTE] [-t MS] [-x]\n"
"               DEVICE CDB_BYTE...\n"
"  -e ENTRY  sgio (default), sic, packet, sgrw, bsg, uring\n"
"  -m MODE   ro (default), rw, wo: how DEVICE is opened\n"
"  -i LEN    read LEN bytes of data from the device\n"
"  -o LEN    send LEN bytes (of -f BYTE, default 0) to the device\n"
"  -d HEX    send these bytes to the device (e.g. 0016001000000000...)\n"
"  -t MS     timeout in milliseconds (default 20000)\n"
"  -x        hex dump the data read\n"
"  -M FILE   the data buffer is FILE mapped read-only and shared (at\n"
"            least -i or -o LEN bytes long); not with -e sic\n"
"  -D        ask sg for direct I/O (SG_FLAG_DIRECT_IO)\n"
"  -F FD     send through descriptor FD, inherited already open (DEVICE\n"
"            only names it); -m is then ignored\n"
"CDB bytes are hex, e.g. 12 00 00 00 24 00 for INQUIRY.\n"
"Exit: 0 GOOD, 1 other SCSI status, 2 denied (EPERM), 3 OS error, 64 usage.\n");
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return (errno || !*s || *end || *out > max) ? -1 : 0;
}

/* A CDB byte: one or two hex digits, optionally after 0x, as in sg_raw. */
static int parse_hex_byte(const char *s, unsigned long *out)
{
	char *end;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	if (!*s || strlen(s) > 2)
		return -1;
	*out = strtoul(s, &end, 16);
	return *end ? -1 : 0;
}

static int parse_args(int argc, char **argv, struct probe *p)
{
	unsigned long v;
	int c, i;

	memset(p, 0, sizeof(*p));
	optind = 0;	/* full getopt reset: parse_args runs once per probe */
	p->mode_name = "ro";
	p->oflags = O_RDONLY;
	p->timeout_ms = 20000;
	p->fd = -1;
	while ((c = getopt(argc, argv, "e:m:i:o:f:t:d:xF:M:Dh")) != -1) {
		switch (c) {
		case 'e':
			for (i = 0; i <= E_URING; i++)
				if (!strcmp(optarg, entry_names[i]))
					break;
			if (i > E_URING) {
				fprintf(stderr, "sgprobe: unknown entry point '%s'\n", optarg);
				return -1;
			}
			p->entry = i;
			break;
		case 'm':
			if (!strcmp(optarg, "ro"))
				p->oflags = O_RDONLY;
			else if (!strcmp(optarg, "rw"))
				p->oflags = O_RDWR;
			else if (!strcmp(optarg, "wo"))
				p->oflags = O_WRONLY;
			else {
				fprintf(stderr, "sgprobe: unknown open mode '%s'\n", optarg);
				return -1;
			}
			p->mode_name = optarg;
			break;
		case 'i':
		case 'o':
		case 'f':
		case 't':
			if (parse_uint(optarg, c == 'f' ? 0xff : c == 't' ?
				       3600000 : MAX_DATA, &v)) {
				fprintf(stderr, "sgprobe: bad value '%s' for -%c\n", optarg, c);
				return -1;
			}
			if (c == 'i')
				p->in_len = v;
			else if (c == 'o')
				p->out_len = v;
			else if (c == 'f')
				p->fill = v;
			else
				p->timeout_ms = v;
			break;
		case 'd':
			v = strlen(optarg);
			if (!v || v % 2 || v / 2 > MAX_DATA ||
			    strspn(optarg, "0123456789abcdefABCDEF") != v) {
				fprintf(stderr, "sgprobe: -d takes an even number of hex digits\n");
				return -1;
			}
			p->data_hex = optarg;
			p->out_len = v / 2;
			break;
		case 'x':
			p->hexdump = 1;
			break;
		case 'F':
			if (parse_uint(optarg, 1023, &v)) {
				fprintf(stderr, "sgprobe: bad descriptor '%s'\n", optarg);
				return -1;
			}
			p->fd = v;
			p->mode_name = "fd";
			break;
		case 'M':
			p->map_file = optarg;
			break;
		case 'D':
			p->direct_io = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (p->in_len && p->out_len) {
		fprintf(stderr, "sgprobe: -i and -o are exclusive\n");
		return -1;
	}
	if (p->map_file && (p->data_hex || p->entry == E_SIC ||
			    !(p->in_len || p->out_len))) {
		fprintf(stderr, "sgprobe: -M takes -i or -o LEN, and neither -d nor -e sic\n");
		return -1;
	}
	if (optind >= argc) {
		fprintf(stderr, "sgprobe: no device given\n");
		return -1;
	}
	p->dev = argv[optind++];
	if (optind >= argc) {
		fprintf(stderr, "sgprobe: no CDB given\n");
		return -1;
	}
	for (; optind < argc; optind++) {
		if (p->cdb_len == MAX_CDB) {
			fprintf(stderr, "sgprobe: CDB longer than %d bytes\n", MAX_CDB);
			return -1;
		}
		if (parse_hex_byte(argv[optind], &v)) {
			fprintf(stderr, "sgprobe: bad CDB byte '%s'\n", argv[optind]);
			return -1;
		}
		p->cdb[p->cdb_len++] = v;
	}
	if (p->entry == E_PACKET && p->cdb_len > CDROM_PACKET_SIZE) {
		fprintf(stderr, "sgprobe: CDROM_SEND_PACKET takes at most %d CDB bytes\n",
			CDROM_PACKET_SIZE);
		return -1;
	}
	return 0;
}

/* Command length the kernel derives for SCSI_IOCTL_SEND_COMMAND. */
static unsigned int sic_cdb_len(uint8_t opcode)
{
	static const unsigned char by_group[8] = { 6, 10, 10, 12, 16, 12, 10, 10 };

	return by_group[(opcode >> 5) & 7];
}

static void v3_fill(const struct probe *p, struct sg_io_hdr *h, uint8_t *data,
		    uint8_t *sense)
{
	memset(h, 0, sizeof(*h));
	h->interface_id = 'S';
	h->cmdp = (unsigned char *)p->cdb;
	h->cmd_len = p->cdb_len;
	h->sbp = sense;
	h->mx_sb_len = SENSE_LEN;
	h->timeout = p->timeout_ms;
	h->dxferp = data;
	if (p->direct_io)
		h->flags |= SG_FLAG_DIRECT_IO;
	if (p->in_len) {
		h->dxfer_direction = SG_DXFER_FROM_DEV;
		h->dxfer_len = p->in_len;
	} else if (p->out_len) {
		h->dxfer_direction = SG_DXFER_TO_DEV;
		h->dxfer_len = p->out_len;
	} else {
		h->dxfer_direction = SG_DXFER_NONE;
	}
}

static void v3_outcome(const struct sg_io_hdr *h, const uint8_t *sense,
		       struct outcome *o)
{
	o->reached = 1;
	o->status = h->status;
	o->host_status = h->host_status;
	o->driver_status = h->driver_status;
	o->sense_len = h->sb_len_wr;
	memcpy(o->sense, sense, SENSE_LEN);
	o->resid = h->resid;
}

static void run_sgio(int fd, const struct probe *p, uint8_t *data, struct outcome *o)
{
	uint8_t sense[SENSE_LEN] = { 0 };
	struct sg_io_hdr h;

	v3_fill(p, &h, data, sense);
	if (ioctl(fd, SG_IO, &h) < 0)
		o->err = errno;
	else
		v3_outcome(&h, sense, o);
}

static void run_sgrw(int fd, const struct probe *p, uint8_t *data, struct outcome *o)
{
	uint8_t sense[SENSE_LEN] = { 0 };
	struct sg_io_hdr h;
	struct pollfd pfd;
	ssize_t n;

	v3_fill(p, &h, data, sense);
	n = write(fd, &h, sizeof(h));
	if (n != (ssize_t)sizeof(h)) {
		o->err = n < 0 ? errno : EIO;
		return;
	}
	/* the fd is non-blocking: wait for the answer (or the timeout) */
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, p->timeout_ms + 1000) <= 0) {
		o->err = ETIMEDOUT;
		return;
	}
	n = read(fd, &h, sizeof(h));
	if (n != (ssize_t)sizeof(h))
		o->err = n < 0 ? errno : EIO;
	else
		v3_outcome(&h, sense, o);
}

static void run_bsg(int fd, const struct probe *p, uint8_t *data, struct outcome *o)
{
	uint8_t sense[SENSE_LEN] = { 0 };
	struct sg_io_v4 h;

	memset(&h, 0, sizeof(h));
	h.guard = 'Q';
	h.protocol = BSG_PROTOCOL_SCSI;
	h.subprotocol = BSG_SUB_PROTOCOL_SCSI_CMD;
	h.request = (uintptr_t)p->cdb;
	h.request_len = p->cdb_len;
	h.response = (uintptr_t)sense;
	h.max_response_len = SENSE_LEN;
	h.timeout = p->timeout_ms;
	if (p->in_len) {
		h.din_xferp = (uintptr_t)data;
		h.din_xfer_len = p->in_len;
	} else if (p->out_len) {
		h.dout_xferp = (uintptr_t)data;
		h.dout_xfer_len = p->out_len;
	}
	if (ioctl(fd, SG_IO, &h) < 0) {
		o->err = errno;
		return;
	}
	o->reached = 1;
	o->status = h.device_status;
	o->host_status = h.transport_status;
	o->driver_status = h.driver_status;
	o->sense_len = h.response_len;
	memcpy(o->sense, sense, SENSE_LEN);
	o->resid = p->in_len ? h.din_resid : h.dout_resid;
}

static void run_sic(int fd, const struct probe *p, uint8_t *data, struct outcome *o)
{
	unsigned int clen = sic_cdb_len(p->cdb[0]);
	unsigned int payload = clen + p->out_len;
	unsigned int *buf;
	int ret;

	if (p->in_len > payload)
		payload = p->in_len;
	if (payload < SENSE_LEN)
		payload = SENSE_LEN;
	buf = calloc(1, 2 * sizeof(unsigned int) + payload);
	if (!buf) {
		o->err = ENOMEM;
		return;
	}
	buf[0] = p->out_len;	/* inlen: bytes to the device */
	buf[1] = p->in_len;	/* outlen: bytes from the device */
	memcpy(buf + 2, p->cdb, p->cdb_len < clen ? p->cdb_len : clen);
	memcpy((uint8_t *)(buf + 2) + clen, data, p->out_len);
	ret = ioctl(fd, SCSI_IOCTL_SEND_COMMAND, buf);
	if (ret < 0) {
		o->err = errno;
	} else {
		o->reached = 1;
		o->status = ret & 0xff;
		if (ret) {
			memcpy(o->sense, buf + 2, SENSE_LEN);
			o->sense_len = (o->sense[0] & 0x70) == 0x70 ? SENSE_LEN : 0;
		} else {
			memcpy(data, buf + 2, p->in_len);
		}
	}
	free(buf);
}

static void run_packet(int fd, const struct probe *p, uint8_t *data,
		       struct outcome *o)
{
	struct request_sense rs;
	struct cdrom_generic_command cgc;

	memset(&cgc, 0, sizeof(cgc));
	memset(&rs, 0, sizeof(rs));
	memcpy(cgc.cmd, p->cdb, p->cdb_len);
	cgc.buffer = data;
	cgc.sense = &rs;
	cgc.timeout = p->timeout_ms;
	if (p->in_len) {
		cgc.buflen = p->in_len;
		cgc.data_direction = CGC_DATA_READ;
	} else if (p->out_len) {
		cgc.buflen = p->out_len;
		cgc.data_direction = CGC_DATA_WRITE;
	} else {
		cgc.data_direction = CGC_DATA_NONE;
	}
	if (ioctl(fd, CDROM_SEND_PACKET, &cgc) < 0) {
		o->err = errno;
		/* EIO with valid sense: the device answered CHECK CONDITION */
		if (errno == EIO && (((uint8_t *)&rs)[0] & 0x70) == 0x70) {
			o->err = 0;
			o->reached = 1;
			o->status = 0x02;
			memcpy(o->sense, &rs, sizeof(rs) < SENSE_LEN ? sizeof(rs) : SENSE_LEN);
			o->sense_len = SENSE_LEN;
		}
		return;
	}
	o->reached = 1;
	o->status = 0;
	o->resid = cgc.buflen;
}

/*
 * One IORING_OP_URING_CMD on a ring of its own (bsg_uring.h): the
 * completion's res is 0 or -errno, its first extra word packs the SCSI
 * status.
 */
static void run_uring(int fd, const struct probe *p, uint8_t *data, struct outcome *o)
{
	uint8_t sense[SENSE_LEN] = { 0 };
	struct bsg_uring_cmd c;
	struct bsg_ring ring;
	int32_t res = 0;
	uint64_t res2 = 0;
	int ret;

	ret = bsg_ring_open(&ring);
	if (ret) {
		o->err = -ret;
		return;
	}
	memset(&c, 0, sizeof(c));
	c.request = (uintptr_t)p->cdb;
	c.request_len = p->cdb_len;
	c.protocol = BSG_PROTOCOL_SCSI;
	c.subprotocol = BSG_SUB_PROTOCOL_SCSI_CMD;
	c.response = (uintptr_t)sense;
	c.max_response_len = SENSE_LEN;
	c.timeout_ms = p->timeout_ms;
	if (p->in_len) {
		c.din_xferp = (uintptr_t)data;
		c.din_xfer_len = p->in_len;
	} else if (p->out_len) {
		c.dout_xferp = (uintptr_t)data;
		c.dout_xfer_len = p->out_len;
	}
	ret = bsg_ring_cmd(&ring, fd, &c, 0, &res, &res2);
	bsg_ring_close(&ring);
	if (ret) {
		o->err = -ret;
		return;
	}
	if (res < 0) {
		o->err = -res;
		return;
	}
	o->reached = 1;
	o->status = res2 & 0xff;
	o->driver_status = (res2 >> 8) & 0xff;
	o->host_status = (res2 >> 16) & 0xff;
	o->sense_len = (res2 >> 24) & 0xff;
	memcpy(o->sense, sense, SENSE_LEN);
	o->resid = (int)(res2 >> 32);
}

typedef void (*run_fn)(int fd, const struct probe *p, uint8_t *data,
		       struct outcome *o);

static const run_fn entry_runs[] = {
	[E_SGIO] = run_sgio, [E_SIC] = run_sic, [E_PACKET] = run_packet,
	[E_SGRW] = run_sgrw, [E_BSG] = run_bsg, [E_URING] = run_uring,
};

static void print_sense(const struct outcome *o)
{
	unsigned int key = 0, asc = 0, ascq = 0;
	uint8_t rc = o->sense[0] & 0x7f;

	if (!o->sense_len || (rc != 0x70 && rc != 0x71 && rc != 0x72 && rc != 0x73)) {
		printf(" sense=none");
		return;
	}
	if (rc >= 0x72) {
		key = o->sense[1] & 0xf;
		asc = o->sense[2];
		ascq = o->sense[3];
	} else {
		key = o->sense[2] & 0xf;
		asc = o->sense[12];
		ascq = o->sense[13];
	}
	printf(" sense_key=0x%x asc=0x%02x ascq=0x%02x", key, asc, ascq);
}

/* FILE mapped read-only and shared, LEN bytes of it (-M). */
static uint8_t *map_buffer(const char *file, unsigned int len)
{
	void *m;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0) {
		printf("sgprobe verdict=error errno=%s call=open-map\n", strerrorname_np(errno));
		return NULL;
	}
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		printf("sgprobe verdict=error errno=%s call=mmap\n", strerrorname_np(errno));
		return NULL;
	}
	return m;
}

static int probe_once(int argc, char **argv)
{
	struct outcome o = { 0 };
	struct probe p;
	uint8_t *data;
	unsigned int i, len;
	int fd, ret;

	if (parse_args(argc, argv, &p)) {
		fprintf(stderr, "Try 'sgprobe -h' for help.\n");
		return EXIT_USAGE;
	}
	len = p.in_len ? p.in_len : p.out_len;
	if (p.map_file) {
		data = map_buffer(p.map_file, len);
		if (!data)
			return EXIT_OSERR;
	} else {
		data = calloc(1, len ? len : 1);
		if (!data) {
			perror("sgprobe");
			return EXIT_OSERR;
		}
		memset(data, p.fill, len);
	}
	for (i = 0; p.data_hex && i < p.out_len; i++)
		sscanf(p.data_hex + 2 * i, "%2hhx", &data[i]);

	printf("sgprobe entry=%s dev=%s mode=%s opcode=0x%02x cdb_len=%u",
	       entry_names[p.entry], p.dev, p.mode_name, p.cdb[0], p.cdb_len);
	fd = p.fd >= 0 ? p.fd : open(p.dev, p.oflags | O_NONBLOCK);
	if (fd < 0) {
		printf(" verdict=error errno=%s call=open\n", strerrorname_np(errno));
		free(data);
		return EXIT_OSERR;
	}
	entry_runs[p.entry](fd, &p, data, &o);
	if (p.fd < 0)
		close(fd);
	if (p.map_file)
		printf(" buffer=mapped-ro");

	if (o.err == EPERM) {
		printf(" verdict=denied errno=EPERM\n");
		ret = EXIT_DENIED;
	} else if (o.err) {
		printf(" verdict=error errno=%s\n", strerrorname_np(o.err));
		ret = EXIT_OSERR;
	} else {
		printf(" verdict=reached status=0x%02x host=0x%x driver=0x%x",
		       o.status, o.host_status, o.driver_status);
		print_sense(&o);
		printf(" resid=%d\n", o.resid);
		ret = o.status ? EXIT_STATUS : EXIT_GOOD;
	}
	if (p.hexdump && o.reached && p.in_len) {
		for (i = 0; i < p.in_len; i++)
			printf("%02x%s", data[i], (i % 16 == 15 || i + 1 == p.in_len) ? "\n" : " ");
	}
	if (p.map_file)
		munmap(data, len);
	else
		free(data);
	return ret;
}

/* Batch mode: one probe per line of standard input. */
static int probe_batch(void)
{
	char line[4096], *argv[MAX_CDB + 32], **av, *tok, *save;
	int argc, bad = 0;

	while (fgets(line, sizeof(line), stdin)) {
		argc = 0;
		argv[argc++] = "sgprobe";
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (argc == (int)(sizeof(argv) / sizeof(argv[0])) - 1)
				break;
			argv[argc++] = tok;
		}
		argv[argc] = NULL;
		if (argc == 1)
			continue;
		av = argv;
		/* the line's tag, in front of its result */
		if (argv[1][0] == '@') {
			printf("%s ", argv[1]);
			argv[1] = argv[0];
			av = argv + 1;
			argc--;
		}
		if (argc == 1 || probe_once(argc, av) == EXIT_USAGE) {
			printf("sgprobe verdict=usage\n");
			bad = 1;
		}
		fflush(stdout);
	}
	return bad ? EXIT_USAGE : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "-b"))
		return probe_batch();
	return probe_once(argc, argv);
}
