/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sgfilter: the per-device policies of the kernel's SCSI command filter.
 *
 * The model mirrors the kernel's (drivers/scsi/scsi_cmd_policy.c): a policy
 * is a list of entries, each a whole opcode or an opcode and a CDB field
 * value, with a class; the text form of an entry is the one the kernel's
 * cmd_filter/ files read and write.
 */
#ifndef SGFILTER_H
#define SGFILTER_H

#include <stddef.h>

enum sgf_class { SGF_PRIV, SGF_READ, SGF_WRITE };

/* as the kernel's SCSI_FILTER_MAX_FIELDS: the most fields of a command */
#define SGF_MAX_FIELDS 6

/* A CDB field: bytes offset.., masked, equal to value. */
struct sgf_field {
	unsigned char offset;	/* first CDB byte of the field */
	unsigned char width;	/* 1, or 2 for a big-endian field */
	unsigned short mask;
	unsigned short value;
};

/* One command: a whole opcode (no field) or an opcode and CDB fields. */
struct sgf_entry {
	unsigned char opcode;
	unsigned char nr_fields;	/* 0 for the whole opcode */
	struct sgf_field f[SGF_MAX_FIELDS];
	enum sgf_class cls;
};

/* as the kernel: every opcode, and commands on 128 CDB fields per class */
#define SGF_MAX_ENTRIES (256 + 3 * 128)
/* "0x85" and six "/cdbNN&0xMM=0xVV" */
#define SGF_TOKEN_MAX 100

struct sgf_policy {
	char set[16];		/* "sbc", "mmc", ... */
	size_t n;
	struct sgf_entry e[SGF_MAX_ENTRIES];
};

/* A command's name in a command set; sa -1 names the opcode as a whole. */
struct sgf_name {
	unsigned char opcode;
	int sa;
	const char *name;
};

/* The name of a command on a CDB field other than a service action. */
struct sgf_field_name {
	const char *token;	/* as the kernel writes it */
	const char *name;
};

/* The command set the policy gives a peripheral device type. */
struct sgf_type_set {
	unsigned char type;
	const char *set;
};

/* The default policy of a command set, as the kernel's files show it. */
struct sgf_default {
	const char *set;
	const char *read, *write, *priv;
	const struct sgf_name *names;
	size_t nr_names;
	const struct sgf_field_name *fields;	/* ends with a NULL token */
};

/* policy.c */
int sgf_parse_token(const char *tok, struct sgf_entry *e);
void sgf_format_token(const struct sgf_entry *e, char *buf, size_t len);
int sgf_same(const struct sgf_entry *a, const struct sgf_entry *b);
int sgf_ambiguous(const struct sgf_entry *a, const struct sgf_entry *b);
int sgf_parse_list(struct sgf_policy *p, const char *text, enum sgf_class cls,
		   char *bad, size_t badlen);
void sgf_sort(struct sgf_policy *p);
const struct sgf_entry *sgf_find(const struct sgf_policy *p,
				 const struct sgf_entry *key);
int sgf_remove(struct sgf_policy *p, const struct sgf_entry *key);
int sgf_default_policy(const char *set, struct sgf_policy *p);
const char *sgf_set_of_type(unsigned int type);
size_t sgf_format_class(const struct sgf_policy *p, enum sgf_class cls,
			char *buf, size_t len);
enum sgf_class sgf_decide(const struct sgf_policy *p,
			  const unsigned char *cdb, size_t len,
			  const struct sgf_entry **why, int *short_cdb);
int sgf_service_action(const struct sgf_entry *e);
const char *sgf_name(const char *set, unsigned char opcode, int sa);
const char *sgf_entry_name(const char *set, const struct sgf_entry *e);
int sgf_lookup_name(const char *set, const char *word, struct sgf_entry *e,
		    char *err, size_t errlen);
const char *sgf_class_name(enum sgf_class cls);

/* device.c */
enum sgf_error {
	SGF_OK = 0,
	SGF_E_USAGE = 1,
	SGF_E_NODEV = 2,
	SGF_E_PERM = 3,
	SGF_E_COMMAND = 4,
	SGF_E_NOFEATURE = 5,
	SGF_E_REFUSED = 6,
	SGF_E_OS = 7,
};

struct sgf_device {
	char hctl[64];		/* H:C:T:L */
	char dir[512];		/* .../cmd_filter */
};

int sgf_resolve(const char *arg, struct sgf_device *d, char *err, size_t errlen);
int sgf_read_attr(const struct sgf_device *d, const char *name, char *buf,
		  size_t len, char *err, size_t errlen);
int sgf_write_attr(const struct sgf_device *d, const char *name,
		   const char *text, char *err, size_t errlen);
/*
 * Whether sg filters a read-write open of the device's sg node: 1 with the
 * module parameter sg.filter_all or the sg device's filter_all, 0 without
 * (sg then filters only SG_IO on an open that is not read-write, and no
 * scanner, as Linux always has), -1 if the device has no sg node or the
 * kernel no such switch.
 */
int sgf_sg_filter_all(const struct sgf_device *d);
int sgf_load(const struct sgf_device *d, struct sgf_policy *p, int *custom,
	     char *err, size_t errlen);

#endif /* SGFILTER_H */
