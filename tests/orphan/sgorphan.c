// SPDX-License-Identifier: GPL-2.0
/*
 * sgorphan: does an io_uring command on a bsg node write into another
 * process when its submitter has exited before it completes?
 *
 * The completion of such a command copies its sense data to the response
 * address the submitter gave, in io_uring task work. With the submitter
 * gone, io_uring runs that work in a kworker, which runs on the page tables
 * of whatever process ran last on its CPU. sgorphan starts one "victim"
 * process per online CPU, each pinned there, with a page at a fixed address
 * filled with 0xaa that it reads in a loop; then a submitter (as --user, if
 * given) that has nothing mapped at that address sends READ(10) beyond the
 * last block of DEVICE (a command any opener may send, which ends in CHECK
 * CONDITION) with its response address there, and exits at once. The
 * device must complete the command later than that (scsi_debug's delay).
 * With --defer the ring is a DEFER_TASKRUN one, whose task work io_uring
 * runs in the ring's exit work once the submitter closed it.
 * The command's user_data is 0x5e45e, for a trace of io_uring_complete.
 *
 * Exit status: 0 no victim's page changed; 1 a victim's page changed (the
 * sense data landed in another process); 3 an OS error (no such device, no
 * io_uring command on it); 4 the command was not in flight when the
 * submitter exited (it completed or was refused at once: no test);
 * 64 a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/bsg.h>

#include "bsg_uring.h"

#define VICTIM_PAGE	((void *)0x7e0000000000UL)
#define PAGE		4096
#define WATCHED		96	/* bytes each victim reads: more than any sense */
#define MAX_CPUS	64

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Read the page in a loop for @seconds: exit 1 if it changed, else 0. */
static void victim(int cpu, int seconds, int ready_fd)
{
	volatile unsigned char *p;
	double end = now() + seconds;
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(3);
	p = mmap(VICTIM_PAGE, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != VICTIM_PAGE) {
		fprintf(stderr, "sgorphan: victim on CPU %d: mmap at %p: %s\n", cpu,
			VICTIM_PAGE, strerror(errno));
		_exit(3);
	}
	memset((void *)p, 0xaa, PAGE);
	if (write(ready_fd, "r", 1) != 1)
		_exit(3);
	close(ready_fd);
	while (now() < end)
		for (i = 0; i < WATCHED; i++)
			if (p[i] != 0xaa) {
				printf("victim on CPU %d: its page at %p changed:", cpu, VICTIM_PAGE);
				for (i = 0; i < 32; i++)
					printf(" %02x", p[i]);
				printf("\n");
				fflush(stdout);
				_exit(1);
			}
	_exit(0);
}

/* Send the command and exit with it in flight: 0, 3 or 4 as above. */
static int submitter(const char *dev, long uid, int defer)
{
	static const unsigned char cdb[10] = { 0x28, 0, 0xff, 0xff, 0xff, 0xf0, 0, 0, 1, 0 };
	struct bsg_uring_cmd c;
	struct io_uring_sqe *sqe;
	struct bsg_ring r;
	uint32_t tail, mask;
	uint64_t ud, res2;
	int32_t res;
	int fd, err;

	if (uid >= 0 && (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid))) {
		fprintf(stderr, "sgorphan: setuid %ld: %s\n", uid, strerror(errno));
		return 3;
	}
	if (mmap(VICTIM_PAGE, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED_NOREPLACE, -1, 0) != VICTIM_PAGE) {
		fprintf(stderr, "sgorphan: the submitter has %p mapped\n", VICTIM_PAGE);
		return 3;
	}
	munmap(VICTIM_PAGE, PAGE);	/* now surely not mapped here */
	fd = open(dev, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "sgorphan: %s: %s\n", dev, strerror(errno));
		return 3;
	}
	err = defer ? bsg_ring_open_flags(&r, IORING_SETUP_SINGLE_ISSUER |
					   IORING_SETUP_DEFER_TASKRUN) : bsg_ring_open(&r);
	if (err) {
		fprintf(stderr, "sgorphan: io_uring_setup: %s\n", strerror(-err));
		return 3;
	}
	memset(&c, 0, sizeof(c));
	c.protocol = BSG_PROTOCOL_SCSI;
	c.subprotocol = BSG_SUB_PROTOCOL_SCSI_CMD;
	c.request = (uintptr_t)cdb;
	c.request_len = sizeof(cdb);
	c.response = (uintptr_t)VICTIM_PAGE;
	c.max_response_len = 32;
	c.timeout_ms = 60000;
	sqe = (struct io_uring_sqe *)r.sqes;
	memset(r.sqes, 0, BSG_URING_SQE_SIZE);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->user_data = 0x5e45e;
	memcpy(r.sqes + BSG_URING_CMD_OFFSET, &c, sizeof(c));
	mask = *(uint32_t *)(r.sq + r.par.sq_off.ring_mask);
	tail = *(uint32_t *)(r.sq + r.par.sq_off.tail);
	((uint32_t *)(r.sq + r.par.sq_off.array))[tail & mask] = 0;
	__atomic_store_n((uint32_t *)(r.sq + r.par.sq_off.tail), tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r.fd, 1, 0, 0, NULL, 0) != 1) {
		fprintf(stderr, "sgorphan: io_uring_enter: %s\n", strerror(errno));
		return 3;
	}
	if (bsg_ring_reap(&r, &ud, &res, &res2)) {
		printf("submitter: the command completed at once (res %d, status 0x%02x): not in flight\n",
		       res, (unsigned int)(res2 & 0xff));
		fflush(stdout);
		return 4;
	}
	printf("submitter: READ(10) beyond the last block sent through io_uring%s, response at %p; exiting with it in flight\n",
	       defer ? " (DEFER_TASKRUN ring)" : "", VICTIM_PAGE);
	fflush(stdout);
	return 0;	/* exit: the command is orphaned */
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sgorphan [--user UID] [--seconds N] [--defer] DEVICE\n"
		"  DEVICE         a bsg node (/dev/bsg/H:C:T:L) whose device delays completions\n"
		"  -u, --user     the submitter's uid (and gid); default: sgorphan's own\n"
		"  -s, --seconds  how long the victims watch their page (1-600; default 10)\n"
		"  -d, --defer    a DEFER_TASKRUN ring (its task work then runs in the ring's exit work)\n"
		"exit: 0 no other process written, 1 written, 3 OS error, 4 no command in flight, 64 usage\n");
}

static int number(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !*s || *end || errno || *v < lo || *v > hi ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "seconds", required_argument, NULL, 's' },
		{ "defer", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	pid_t victims[MAX_CPUS], sub;
	long uid = -1, seconds = 10, cpus;
	int ready[2], o, i, st, rc = 0, changed = 0, defer = 0;
	char c;

	while ((o = getopt_long(argc, argv, "u:s:dh", opts, NULL)) != -1) {
		switch (o) {
		case 'u':
			if (number(optarg, 0, INT_MAX, &uid)) {
				fprintf(stderr, "sgorphan: --user: '%s' is not a uid\n", optarg);
				return 64;
			}
			break;
		case 's':
			if (number(optarg, 1, 600, &seconds)) {
				fprintf(stderr, "sgorphan: --seconds: '%s' is not 1 to 600\n", optarg);
				return 64;
			}
			break;
		case 'd':
			defer = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 64;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 64;
	}
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1 || cpus > MAX_CPUS) {
		fprintf(stderr, "sgorphan: %ld CPUs online: 1 to %d supported\n", cpus, MAX_CPUS);
		return 3;
	}
	if (pipe(ready)) {
		perror("sgorphan: pipe");
		return 3;
	}
	fflush(stdout);
	for (i = 0; i < cpus; i++) {
		victims[i] = fork();
		if (victims[i] < 0) {
			perror("sgorphan: fork");
			return 3;
		}
		if (!victims[i]) {
			close(ready[0]);
			victim(i, (int)seconds, ready[1]);
		}
	}
	close(ready[1]);
	for (i = 0; i < cpus; i++)
		if (read(ready[0], &c, 1) != 1) {
			fprintf(stderr, "sgorphan: a victim did not start\n");
			rc = 3;
		}
	close(ready[0]);
	if (!rc) {
		sub = fork();
		if (sub < 0) {
			perror("sgorphan: fork");
			rc = 3;
		} else if (!sub) {
			_exit(submitter(argv[optind], uid, defer));
		} else if (waitpid(sub, &st, 0) != sub || !WIFEXITED(st)) {
			rc = 3;
		} else {
			rc = WEXITSTATUS(st);
		}
	}
	for (i = 0; i < cpus; i++) {
		if (rc)
			kill(victims[i], SIGKILL);
		if (waitpid(victims[i], &st, 0) == victims[i] && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 1)
			changed = 1;
	}
	if (rc)
		return rc;
	printf("%s\n", changed ? "another process's page changed: the sense data landed there" :
	       "no other process's page changed");
	return changed;
}
