/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring commands on bsg nodes (IORING_OP_URING_CMD, Linux 7.1 and
 * later) with raw system calls: Debian 12's liburing and uapi headers
 * predate them. One ring of 128-byte submission and 32-byte completion
 * entries, one command at a time. Used by sgprobe (-e uring) and sgfuzz.
 */
#ifndef BSG_URING_H
#define BSG_URING_H

#include <errno.h>
#include <linux/io_uring.h>
#include <linux/types.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The SCSI command of a bsg io_uring command (uapi <linux/bsg.h>): the 80
 * bytes from byte 48 of a 128-byte submission queue entry.
 */
struct bsg_uring_cmd {
	__u64 request;
	__u32 request_len, protocol, subprotocol, max_response_len;
	__u64 response, dout_xferp;
	__u32 dout_xfer_len, dout_iovec_count;
	__u64 din_xferp;
	__u32 din_xfer_len, din_iovec_count;
	__u32 timeout_ms;
	__u8 reserved[12];
};
_Static_assert(sizeof(struct bsg_uring_cmd) == 80, "bsg_uring_cmd is 80 bytes");

#define BSG_URING_SQE_SIZE	128	/* IORING_SETUP_SQE128 */
#define BSG_URING_CQE_SIZE	32	/* IORING_SETUP_CQE32 */
#define BSG_URING_CMD_OFFSET	48	/* the command's place in the entry */

struct bsg_ring {
	int fd;
	uint64_t seq;		/* the user_data of the last command sent */
	struct io_uring_params par;
	uint8_t *sq, *cq, *sqes;
	size_t sq_len, cq_len, sqes_len;
};

static inline void bsg_ring_close(struct bsg_ring *r)
{
	if (r->sq && r->sq != MAP_FAILED)
		munmap(r->sq, r->sq_len);
	if (r->cq && r->cq != MAP_FAILED)
		munmap(r->cq, r->cq_len);
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/*
 * A ring of one entry with the setup flags @flags besides SQE128 and CQE32:
 * 0, or -errno (ENOSYS: no io_uring in the kernel).
 */
static inline int bsg_ring_open_flags(struct bsg_ring *r, uint32_t flags)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->par.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 | flags;
	r->fd = (int)syscall(__NR_io_uring_setup, 1, &r->par);
	if (r->fd < 0)
		return -errno;
	r->sq_len = r->par.sq_off.array + r->par.sq_entries * sizeof(uint32_t);
	r->cq_len = r->par.cq_off.cqes + r->par.cq_entries * BSG_URING_CQE_SIZE;
	r->sqes_len = r->par.sq_entries * BSG_URING_SQE_SIZE;
	r->sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     r->fd, IORING_OFF_SQ_RING);
	r->cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sq == MAP_FAILED || r->cq == MAP_FAILED || r->sqes == MAP_FAILED) {
		err = errno;
		bsg_ring_close(r);
		return -err;
	}
	return 0;
}

/* A ring of one entry: 0, or -errno (ENOSYS: no io_uring in the kernel). */
static inline int bsg_ring_open(struct bsg_ring *r)
{
	return bsg_ring_open_flags(r, 0);
}

/* Take the oldest completion: 1 with its user_data, res and res2, or 0. */
static inline int bsg_ring_reap(struct bsg_ring *r, uint64_t *user_data, int32_t *res,
				uint64_t *res2)
{
	uint32_t head, cq_mask;
	uint8_t *cqe;

	head = __atomic_load_n((uint32_t *)(r->cq + r->par.cq_off.head), __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n((uint32_t *)(r->cq + r->par.cq_off.tail), __ATOMIC_ACQUIRE))
		return 0;
	cq_mask = *(uint32_t *)(r->cq + r->par.cq_off.ring_mask);
	cqe = r->cq + r->par.cq_off.cqes + (head & cq_mask) * BSG_URING_CQE_SIZE;
	memcpy(user_data, cqe, sizeof(*user_data));
	memcpy(res, cqe + 8, sizeof(*res));
	memcpy(res2, cqe + 16, sizeof(*res2));
	__atomic_store_n((uint32_t *)(r->cq + r->par.cq_off.head), head + 1, __ATOMIC_RELEASE);
	return 1;
}

/*
 * Send @c to the bsg node @fd, with the entry's flags @sqe_flags (such as
 * IOSQE_ASYNC), and wait for its completion: 0 with the completion's res
 * (0 or -errno) in *@res and its first extra word in *@res2 (the SCSI
 * status, from the low byte up: device status, driver status, host
 * status, sense length, then the residue in the high half), or -errno
 * when the ring itself failed. A completion of an earlier command (one
 * whose wait failed) is taken and dropped: each command has its own
 * user_data.
 */
static inline int bsg_ring_cmd(struct bsg_ring *r, int fd, const struct bsg_uring_cmd *c,
			       uint8_t sqe_flags, int32_t *res, uint64_t *res2)
{
	struct io_uring_sqe *sqe = (struct io_uring_sqe *)r->sqes;
	uint32_t tail, sq_mask;
	uint64_t ud;
	int tries;

	memset(r->sqes, 0, BSG_URING_SQE_SIZE);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->flags = sqe_flags;
	sqe->fd = fd;
	sqe->user_data = ++r->seq;
	memcpy(r->sqes + BSG_URING_CMD_OFFSET, c, sizeof(*c));
	sq_mask = *(uint32_t *)(r->sq + r->par.sq_off.ring_mask);
	tail = *(uint32_t *)(r->sq + r->par.sq_off.tail);
	((uint32_t *)(r->sq + r->par.sq_off.array))[tail & sq_mask] = 0;
	__atomic_store_n((uint32_t *)(r->sq + r->par.sq_off.tail), tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	for (tries = 0; tries < 8; tries++) {
		while (bsg_ring_reap(r, &ud, res, res2))
			if (ud == r->seq)
				return 0;
		if (syscall(__NR_io_uring_enter, r->fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
			return -errno;
	}
	return -EIO;	/* io_uring_enter returned without this command's completion */
}

#endif /* BSG_URING_H */
