// SPDX-License-Identifier: GPL-2.0
/*
 * Finding a SCSI device's cmd_filter/ directory in sysfs, and reading and
 * writing its files. SGFILTER_SYSFS replaces /sys (for the tests).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sgfilter.h"

/* snprintf() that reports truncation: 0 if the whole text fit. */
#define fmt(buf, len, ...) \
	(snprintf(buf, len, __VA_ARGS__) >= (int)(len) ? -1 : 0)

static const char *sysfs_root(void)
{
	const char *r = getenv("SGFILTER_SYSFS");

	return r && *r ? r : "/sys";
}

static int is_hctl(const char *s)
{
	unsigned int h, c, t;
	unsigned long long l;
	int n = 0;

	return sscanf(s, "%u:%u:%u:%llu%n", &h, &c, &t, &l, &n) == 4 &&
	       n == (int)strlen(s);
}

/* The H:C:T:L a device node belongs to, from its sysfs "device" link. */
static int hctl_of_node(const char *node, char *hctl, size_t len,
			char *err, size_t errlen)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct stat st;
	int blk;

	if (stat(node, &st)) {
		snprintf(err, errlen, "%s: %s", node, strerror(errno));
		return SGF_E_NODEV;
	}
	blk = S_ISBLK(st.st_mode);
	if (!blk && !S_ISCHR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a device node or H:C:T:L", node);
		return SGF_E_NODEV;
	}
	if (fmt(path, sizeof(path), "%s/dev/%s/%u:%u", sysfs_root(),
		blk ? "block" : "char", major(st.st_rdev), minor(st.st_rdev)) ||
	    !realpath(path, real)) {
		snprintf(err, errlen, "%s: no device %u:%u in sysfs", node,
			 major(st.st_rdev), minor(st.st_rdev));
		return SGF_E_NODEV;
	}
	/* a partition: its disk is the parent directory */
	if (blk && !fmt(path, sizeof(path), "%s/partition", real) &&
	    !access(path, F_OK))
		*strrchr(real, '/') = '\0';
	if (fmt(path, sizeof(path), "%s/device", real) ||
	    !realpath(path, real) || !is_hctl(basename(real))) {
		snprintf(err, errlen, "%s: not a SCSI device", node);
		return SGF_E_NODEV;
	}
	snprintf(hctl, len, "%s", basename(real));
	return SGF_OK;
}

int sgf_resolve(const char *arg, struct sgf_device *d, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int ret;

	memset(d, 0, sizeof(*d));
	if (is_hctl(arg)) {
		snprintf(d->hctl, sizeof(d->hctl), "%s", arg);
	} else {
		ret = hctl_of_node(arg, d->hctl, sizeof(d->hctl), err, errlen);
		if (ret)
			return ret;
	}
	if (fmt(path, sizeof(path), "%s/bus/scsi/devices/%s", sysfs_root(),
		d->hctl) || access(path, F_OK)) {
		snprintf(err, errlen, "no SCSI device %s", d->hctl);
		return SGF_E_NODEV;
	}
	if (fmt(d->dir, sizeof(d->dir), "%s/cmd_filter", path) ||
	    access(d->dir, F_OK)) {
		snprintf(err, errlen, "%s: the kernel has no per-device command "
			 "filter (no %s)", arg, d->dir);
		return SGF_E_NOFEATURE;
	}
	return SGF_OK;
}

static int errno_code(int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
	case EROFS:
		return SGF_E_PERM;
	case EINVAL:
	case E2BIG:
		return SGF_E_REFUSED;
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return SGF_E_NODEV;
	default:
		return SGF_E_OS;
	}
}

static int attr_path(const struct sgf_device *d, const char *name, char *path,
		     size_t len, char *err, size_t errlen)
{
	if (!fmt(path, len, "%s/%s", d->dir, name))
		return 0;
	snprintf(err, errlen, "%s/%s: path too long", d->dir, name);
	return -1;
}

/* Read a sysfs file's first line into @buf. */
static int read_file(const char *path, char *buf, size_t len, char *err,
		     size_t errlen)
{
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return e == ENOENT ? SGF_E_NOFEATURE : errno_code(e);
	}
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return errno_code(e);
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return SGF_OK;
}

int sgf_read_attr(const struct sgf_device *d, const char *name, char *buf,
		  size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX];

	if (attr_path(d, name, path, sizeof(path), err, errlen))
		return SGF_E_OS;
	return read_file(path, buf, len, err, errlen);
}

int sgf_sg_filter_all(const struct sgf_device *d)
{
	char path[PATH_MAX], buf[8], err[PATH_MAX + 64];
	int all;

	if (fmt(path, sizeof(path), "%s/module/sg/parameters/filter_all",
		sysfs_root()) || read_file(path, buf, sizeof(buf), err, sizeof(err)))
		return -1;
	all = buf[0] == 'Y' || buf[0] == '1';
	/* the device's sg class device, through its "generic" link */
	if (sgf_read_attr(d, "../generic/filter_all", buf, sizeof(buf), err,
			  sizeof(err)))
		return -1;
	return all || buf[0] == '1';
}

int sgf_write_attr(const struct sgf_device *d, const char *name,
		   const char *text, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t len = strlen(text);
	ssize_t n;
	int fd, e;

	if (attr_path(d, name, path, sizeof(path), err, errlen))
		return SGF_E_OS;
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s%s", path, strerror(e),
			 e == EACCES || e == EPERM ? " (needs root with CAP_SYS_RAWIO)" : "");
		return errno_code(e);
	}
	n = write(fd, text, len);
	e = errno;
	close(fd);
	if (n != (ssize_t)len) {
		snprintf(err, errlen, "%s: %s%s", path,
			 n < 0 ? strerror(e) : "short write",
			 n < 0 && e == EPERM ? " (needs CAP_SYS_RAWIO)" :
			 n < 0 && e == EINVAL ? " (the kernel refused the policy)" : "");
		return n < 0 ? errno_code(e) : SGF_E_OS;
	}
	return SGF_OK;
}

/* The device's effective policy, from its cmd_filter/ files. */
int sgf_load(const struct sgf_device *d, struct sgf_policy *p, int *custom,
	     char *err, size_t errlen)
{
	static const char *const files[] = { "priv", "read", "write" };
	static const enum sgf_class cls[] = { SGF_PRIV, SGF_READ, SGF_WRITE };
	char buf[8192], bad[SGF_TOKEN_MAX + 1];
	int i, ret;

	memset(p, 0, sizeof(*p));
	ret = sgf_read_attr(d, "cmd_set", p->set, sizeof(p->set), err, errlen);
	if (ret)
		return ret;
	ret = sgf_read_attr(d, "custom", buf, sizeof(buf), err, errlen);
	if (ret)
		return ret;
	*custom = buf[0] == '1';
	for (i = 0; i < 3; i++) {
		ret = sgf_read_attr(d, files[i], buf, sizeof(buf), err, errlen);
		if (ret)
			return ret;
		if (sgf_parse_list(p, buf, cls[i], bad, sizeof(bad))) {
			snprintf(err, errlen, "%s/%s: cannot parse '%s'", d->dir,
				 files[i], bad);
			return SGF_E_OS;
		}
	}
	sgf_sort(p);
	return SGF_OK;
}
