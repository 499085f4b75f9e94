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
 *   sgfuzz selftest
 *	The models' own checks against the kernel's rules, on the host.
 *
 * The modes live in cdb.c, sysfs.c and race.c; sgfuzz.h is what they share.
 *
 * Every mode ends with "key=value" lines on standard output. Exit status:
 * 0 no finding, 1 a finding (the output says which), 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <asm/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sgfuzz.h"

/* SGFUZZ_SYSFS and SGFUZZ_DEV move both trees, for the host's tests */
const char *sysfs_devices = "/sys/bus/scsi/devices";
const char *dev_dir = "/dev";

unsigned char *arena, *guard;
volatile unsigned long cur_seq;

void on_alarm(int sig)
{
	static const char msg[] = "sgfuzz: a call hung for 120 s\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

/*
 * A fault in the fuzzer: the call under way, the faulting address, the
 * thread pointer against the one it had at the start, that thread block's
 * first bytes and the process's mappings, on standard error; then the
 * default action, so that the exit status still names the signal. Only
 * system calls: the fault may have broken libc's own state.
 */
static uintptr_t tp_at_start;

static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = syscall(SYS_write, 2, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void put_str(const char *s)
{
	put(s, strlen(s));
}

static void put_hex(const char *label, unsigned long v)
{
	char buf[40];
	int i = (int)sizeof(buf);

	buf[--i] = ' ';
	do {
		buf[--i] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v && i > 3);
	buf[--i] = 'x';
	buf[--i] = '0';
	if (*label)
		buf[--i] = '=';
	put_str(label);
	put(buf + i, sizeof(buf) - (size_t)i);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	unsigned long fs = 0;
	char buf[4096];
	ssize_t n;
	int fd, i;

	(void)uc;
	syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
	put_str("sgfuzz: fault:");
	put_hex(" signal", (unsigned long)sig);
	put_hex("call", cur_seq);
	put_hex("addr", (unsigned long)si->si_addr);
	put_hex("fs", fs);
	put_hex("fs_at_start", tp_at_start);
	put_str("\nsgfuzz: fault: thread block: ");
	for (i = 0; i < 8; i++)
		put_hex("", ((unsigned long *)tp_at_start)[i]);
	put_str("\n");
	fd = (int)syscall(SYS_open, "/proc/self/maps", O_RDONLY);
	while (fd >= 0 && (n = syscall(SYS_read, fd, buf, sizeof(buf))) > 0)
		put(buf, (size_t)n);
	signal(sig, SIG_DFL);
	syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), sig);
}

static void catch_faults(void)
{
	static char alt[64 * 1024];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	struct sigaction sa;

	tp_at_start = (uintptr_t)__builtin_thread_pointer();
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* ------------------------------------------------------------------ */
/* randomness: xorshift64*, reproducible from the seed */

uint64_t rng_state;

uint64_t rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

unsigned int rnd(unsigned int n)
{
	return n ? (unsigned int)(rnd64() % n) : 0;
}

int chance(unsigned int percent)
{
	return rnd(100) < percent;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "sgfuzz: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

/* ------------------------------------------------------------------ */
/* devices */

struct fdev devs[MAX_DEVS];
unsigned int nr_devs;

int read_small(const char *path, char *buf, size_t len)
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
	d->libata = !strncmp(buf, "ATA ", 4);
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

/* The H:C:T:L arguments after the options: at least one. */
void add_devices(int argc, char **argv, const char *mode)
{
	int i;

	if (optind >= argc)
		die("%s: no device given", mode);
	for (i = optind; i < argc; i++)
		add_device(argv[i]);
}

long counter(int fd)
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
	catch_faults();
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

