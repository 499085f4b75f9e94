// SPDX-License-Identifier: GPL-2.0
/*
 * sgfuzz sysfs: random and adversarial writes to the cmd_filter/ files,
 * each checked against a model of the kernel's parser; and selftest, the
 * model's own checks. See sgfuzz.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sgfuzz.h"

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

#define KMAX_ENTRIES (256 + 3 * 128)
#define KMAX_FIELDS 128	/* fields of the rules on CDB fields, per class */

/*
 * What the kernel makes of @text written to class file @cls of a device
 * whose policy is @cur: 0 and the new policy in @out, or -EINVAL/-E2BIG.
 * Tokens without a prefix replace the class's commands; tokens that each
 * have "+" or "-" edit them (drivers/scsi/scsi_cmd_policy.c).
 */
static int model_store(const struct sgf_policy *cur, enum sgf_class cls,
		       const char *text, size_t len, struct sgf_policy *out)
{
	struct sgf_entry e[KMAX_ENTRIES];
	char tok[SGF_TOKEN_MAX + 1], op[KMAX_ENTRIES];
	size_t i = 0, j, k, n = 0, fields[3] = { 0 }, t;

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
		op[n] = text[i] == '+' || text[i] == '-' ? text[i] : 0;
		if (op[n])
			i++;
		if (n && !op[n] != !op[0])
			return -EINVAL;
		if (t - i >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, text + i, t - i);
		tok[t - i] = '\0';
		if (sgf_parse_token(tok, &e[n]))
			return -EINVAL;
		if (cls == SGF_PRIV && !e[n].nr_fields && !op[n])
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
	if (n && op[0]) {
		/* edits of the current policy, in the order written */
		memcpy(out->e, cur->e, cur->n * sizeof(cur->e[0]));
		out->n = cur->n;
		for (i = 0; i < n; i++) {
			const struct sgf_entry *old = sgf_find(out, &e[i]);

			if (op[i] == '-' && (!old || old->cls != cls))
				return -EINVAL;
			sgf_remove(out, &e[i]);
			if (op[i] == '-')
				continue;
			if (cls == SGF_PRIV && !e[i].nr_fields) {
				/* the whole opcode, every form of it */
				for (k = out->n; k-- > 0;) {
					struct sgf_entry x = out->e[k];

					if (x.opcode == e[i].opcode)
						sgf_remove(out, &x);
				}
				continue;
			}
			if (out->n == KMAX_ENTRIES)
				return -E2BIG;
			out->e[out->n++] = e[i];
		}
	} else {
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
		memcpy(out->e, e, n * sizeof(e[0]));
		out->n = n;
	}
	for (i = 0; i < out->n; i++)
		fields[out->e[i].cls] += out->e[i].nr_fields;
	for (i = 0; i < 3; i++)
		if (fields[i] > KMAX_FIELDS)
			return -E2BIG;
	sgf_sort(out);
	/* two entries that only the order of their bytes would tell apart */
	for (i = 0; i < out->n; i++)
		for (j = i + 1; j < out->n && out->e[j].opcode == out->e[i].opcode; j++)
			if (sgf_ambiguous(&out->e[i], &out->e[j]))
				return -EINVAL;
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
	char tok[SGF_TOKEN_MAX + 1];
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

/*
 * Write @len bytes of @text to the device's cmd_filter/@name, in one write()
 * or, with @split, in two.  Returns 0 or the first call's -errno; *err2 is
 * the second call's, *n1 what the first returned.  When the file does not
 * open, that is the -errno returned, *err2 is 0 and *n1 is -1: the caller's
 * model, which expects no such error, calls it a failure.
 */
int write_attr(const char *hctl, const char *name, const char *text, size_t len,
		      size_t split, int *err2, ssize_t *n1)
{
	char path[256];
	ssize_t n;
	int fd, ret;

	*err2 = 0;
	*n1 = -1;
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

int fuzz_sysfs(int argc, char **argv)
{
	static struct snapshot before, after;
	static struct sgf_policy cur, next, mid;
	static char text[8192], expect[4][8192];
	/* per write: accepted (every call succeeded), rejected (every call
	 * refused), partly (a split write, one call succeeded, one refused);
	 * per write() call: succeeded (an empty one too, which stores nothing),
	 * EINVAL, E2BIG, any other error */
	unsigned long count = 1000, it, accepted = 0, rejected = 0, partly = 0;
	unsigned long failures = 0, resets = 0, partial = 0;
	unsigned long calls = 0, succeeded = 0, einval = 0, e2big = 0, other = 0;
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
	add_devices(argc, argv, "sysfs");
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
		if (!ret && !ret2)
			accepted++;
		else if (ret && (!split || ret2))
			rejected++;
		else
			partly++;
		for (i = 0; i < (split ? 2 : 1); i++) {
			int e = i ? ret2 : ret;

			calls++;
			succeeded += !e;
			einval += e == -EINVAL;
			e2big += e == -E2BIG;
			other += e && e != -EINVAL && e != -E2BIG;
		}
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
			if (failures > 20) {
				it++;	/* this write is counted */
				break;
			}
		}
	}
	for (i = 0; i < (int)nr_devs; i++) {
		int e2;
		ssize_t n1;

		write_attr(devs[i].hctl, "reset", "1", 1, 0, &e2, &n1);
	}
	t0 = now() - t0;
	printf("seed=%llu\nwrites=%lu\nseconds=%.1f\nrate=%.0f\naccepted=%lu\nrejected=%lu\n"
	       "partly=%lu\nresets=%lu\npartial=%lu\ncalls=%lu\nsucceeded=%lu\neinval=%lu\n"
	       "e2big=%lu\nother=%lu\nfailures=%lu\n",
	       (unsigned long long)seed, it, t0, it / t0, accepted, rejected, partly, resets,
	       partial, calls, succeeded, einval, e2big, other, failures);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* selftest: the models against what the kernel's code and ABI say */

static int nr_failed;

/* expect COND CASE WHAT: the result line "ok - sgfuzz.model.CASE: WHAT" */
static void expect(int cond, const char *id, const char *what)
{
	printf("%s - sgfuzz.model.%s: %s\n", cond ? "ok" : "not ok", id, what);
	nr_failed += !cond;
}

static int has_token(const struct sgf_policy *p, enum sgf_class cls, const char *tok)
{
	struct sgf_entry e;
	const struct sgf_entry *f;

	return !sgf_parse_token(tok, &e) && (f = sgf_find(p, &e)) && f->cls == cls;
}

int selftest(void)
{
	static struct sgf_policy sbc, next;
	static char text[8192];
	char tok[SGF_TOKEN_MAX + 1];
	struct sgf_entry e;
	size_t i, len, other_fields = 0;
	const char *t;
	int ok = 1;

	expect(kspace(0xa0) && kspace('\v') && kspace(' ') && !kspace(0x85) && !kspace('x'),
	       "whitespace", "the kernel's white space: \\t-\\r, space and 0xa0, not 0x85");
	expect(model_reset_ok("1", 1) && model_reset_ok("1\n", 2) && model_reset_ok("+1", 2) &&
	       model_reset_ok("01", 2), "reset.accepts",
	       "reset takes 1, 1\\n, +1, 01 (kstrtouint)");
	expect(!model_reset_ok("0", 1) && !model_reset_ok("2", 1) && !model_reset_ok("", 0) &&
	       !model_reset_ok("1 ", 2) && !model_reset_ok("-1", 2) && !model_reset_ok("\n", 1) &&
	       !model_reset_ok("4294967297", 10), "reset.refuses",
	       "reset refuses 0, 2, empty, '1 ', -1, overflow");
	sgf_default_policy("sbc", &sbc);
	expect(model_store(&sbc, SGF_READ, "0x28 0x28", 9, &next) == -EINVAL,
	       "store.duplicate", "a token written twice: EINVAL");
	expect(model_store(&sbc, SGF_READ, "0x28\0 0x2a", 10, &next) == -EINVAL,
	       "store.nul", "a NUL byte: EINVAL");
	expect(model_store(&sbc, SGF_PRIV, "0x28", 4, &next) == -EINVAL,
	       "store.opcode-in-priv", "a whole opcode in priv: EINVAL");
	expect(model_store(&sbc, SGF_PRIV, "0xa3/cdb10&0x3f=0x06", 20, &next) == 0 &&
	       has_token(&next, SGF_PRIV, "0xa3/cdb10&0x3f=0x06"), "store.field-in-priv",
	       "a field rule in priv: taken");
	t = "+0x85/cdb8&0xe0=0xa0";
	expect(model_store(&sbc, SGF_PRIV, t, strlen(t), &next) == -EINVAL, "store.ambiguous",
	       "an exception on byte 8 alone, which a CDB could match beside a read row: EINVAL");
	t = "+0x85/cdb1&0x1e=0x08/cdb2&0x0f=0x0e/cdb4&0xff=0xd5/cdb8&0xff=0x06/cdb14&0xff=0xb0";
	expect(model_store(&sbc, SGF_PRIV, t, strlen(t), &next) == 0 &&
	       has_token(&next, SGF_PRIV, t + 1), "store.narrower",
	       "an exception with every field of the read row it narrows: taken");
	expect(model_store(&sbc, SGF_READ, "0x2a\n", 5, &next) == 0 &&
	       has_token(&next, SGF_READ, "0x2a") && !has_token(&next, SGF_READ, "0x28") &&
	       !has_token(&next, SGF_WRITE, "0x2a") && has_token(&next, SGF_WRITE, "0x35"),
	       "store.read-replaces", "writing read replaces the read class; WRITE(10) moves from write to read");
	expect(model_store(&sbc, SGF_READ, "0x28\xa0" "0x2a", 9, &next) == 0 &&
	       has_token(&next, SGF_READ, "0x2a"), "store.0xa0-separates",
	       "0xa0 separates tokens, as in the kernel");
	/* the bound is per class: the other classes' fields do not count */
	for (i = 0; i < sbc.n; i++)
		if (sbc.e[i].cls != SGF_READ)
			other_fields += sbc.e[i].nr_fields;
	expect(other_fields > 0, "store.fields-others", "sbc has fields in its other classes");
	for (len = 0, i = 0; i < 128; i++)
		len += (size_t)sprintf(text + len, " 0xc0/cdb%zu&0xff=0x%02zx", 2 + i / 200, i);
	expect(model_store(&sbc, SGF_READ, text, len, &next) == 0,
	       "store.fields-128", "128 field rules in one class: taken");
	len += (size_t)sprintf(text + len, " 0xc1/cdb2&0xff=0x00");
	expect(model_store(&sbc, SGF_READ, text, len, &next) == -E2BIG,
	       "store.fields-129", "129 field rules in one class: E2BIG");
	for (len = 0, i = 0; i < KMAX_ENTRIES + 1; i++)
		len += (size_t)sprintf(text + len, " 0x%02zx", i & 0xff);
	expect(model_store(&sbc, SGF_READ, text, len, &next) == -E2BIG,
	       "store.tokens-641", "641 tokens: E2BIG before the duplicates are found");
	expect(model_store(&sbc, SGF_READ, "+0x42 +0xc1", 11, &next) == 0 &&
	       has_token(&next, SGF_READ, "0x42") && has_token(&next, SGF_READ, "0x28") &&
	       !has_token(&next, SGF_WRITE, "0x42"), "edit.plus",
	       "+ moves UNMAP to read and keeps the rest");
	expect(model_store(&sbc, SGF_READ, "-0x28", 5, &next) == 0 &&
	       !has_token(&next, SGF_READ, "0x28"), "edit.minus",
	       "- takes READ(10) out of read");
	expect(model_store(&sbc, SGF_READ, "-0x2a", 5, &next) == -EINVAL,
	       "edit.minus-other-class", "- before a command of another class: EINVAL");
	expect(model_store(&sbc, SGF_READ, "+0x28 0x2a", 10, &next) == -EINVAL,
	       "edit.mixed", "prefixed and unprefixed tokens mixed: EINVAL");
	expect(model_store(&sbc, SGF_PRIV, "+0x9e", 5, &next) == 0 &&
	       !has_token(&next, SGF_READ, "0x9e/sa=0x10"),
	       "edit.plus-priv-opcode", "+ before a whole opcode in priv drops every form of it");
	sgf_parse_token("0x12/cdb1&0x1f=0x01", &e);
	sgf_format_token(&e, tok, sizeof(tok));
	expect(!strcmp(tok, "0x12/sa=0x01"), "format.sa", "cdb1&0x1f reads back as sa= (kernel's show)");
	sgf_parse_token("0x7f/cdb1&0x1f=0x01", &e);
	sgf_format_token(&e, tok, sizeof(tok));
	expect(!strcmp(tok, "0x7f/cdb1&0x1f=0x01"), "format.sa-0x7f",
	       "... but not on opcode 0x7f");
	/* the generators, under the sanitizers */
	rng_state = 42;
	for (i = 0; i < 20000; i++) {
		enum sgf_class cls = (enum sgf_class)rnd(3);
		int ret;

		len = random_text(text, sizeof(text), &sbc);
		ret = model_store(&sbc, cls, text, len, &next);
		ok &= ret == 0 || ret == -EINVAL || ret == -E2BIG;
	}
	expect(ok, "random-texts", "20000 random policy texts through the model");
	return nr_failed ? 1 : 0;
}

