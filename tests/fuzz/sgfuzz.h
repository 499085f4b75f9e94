/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sgfuzz: what its modes share (see sgfuzz.c for the modes).
 */
#ifndef SGFUZZ_H
#define SGFUZZ_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sgfilter.h"

#define MAX_DEVS	32
#define MAX_CDB		260
#define ARENA_SIZE	(2 << 20)
#define PAGE		4096

/* the device nodes of one SCSI device under test */
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
	int libata;			/* an ATA device behind libata (QEMU's IDE) */
	int next_cmd_len[3][2];		/* SG_NEXT_CMD_LEN pending on a cached sg fd */
};

/* sgfuzz.c: randomness, time, devices, the buffer arena */
extern uint64_t rng_state;
uint64_t rnd64(void);
unsigned int rnd(unsigned int n);
int chance(unsigned int percent);
double now(void);
void die(const char *fmt, const char *arg) __attribute__((noreturn));
int read_small(const char *path, char *buf, size_t len);
void add_devices(int argc, char **argv, const char *mode);
long counter(int fd);
void on_alarm(int sig);

extern const char *sysfs_devices, *dev_dir;
extern struct fdev devs[MAX_DEVS];
extern unsigned int nr_devs;
extern unsigned char *arena;	/* ARENA_SIZE bytes, then a PROT_NONE page */
extern unsigned char *guard;
extern volatile unsigned long cur_seq;	/* the call under way, for on_alarm() */

/* the modes */
int fuzz_cdb(int argc, char **argv);		/* cdb.c */
int fuzz_sysfs(int argc, char **argv);		/* sysfs.c */
int selftest(void);				/* sysfs.c */
int hammer(int argc, char **argv);		/* race.c */
int rewrite(int argc, char **argv);		/* race.c */

/* sysfs.c: write @text to cmd_filter/@name, in two write()s if @split */
int write_attr(const char *hctl, const char *name, const char *text, size_t len,
	       size_t split, int *err2, ssize_t *n1);

#endif /* SGFUZZ_H */
