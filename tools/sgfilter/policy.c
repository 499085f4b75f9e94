// SPDX-License-Identifier: GPL-2.0
/*
 * The policy model of sgfilter: tokens, lists of commands, the decision,
 * and command names. See sgfilter.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgfilter.h"
#include "default_policy.h"
#include "scsi_cmd_filter_token.h"

_Static_assert(SGF_MAX_FIELDS == SCSI_FILTER_MAX_FIELDS,
	       "sgfilter.h's SGF_MAX_FIELDS is not the kernel's");

/*
 * Parse "0x28", "0x9e/sa=0x10", "0xa3/cdb10&0x3f=0x06" or several fields,
 * "0x85/cdb1&0x1e=0x08/cdb14&0xff=0xec", with the kernel's own parser
 * (scsi_cmd_filter_token.h, taken from the series).
 * Returns 0, or -1 if the token is malformed.
 */
int sgf_parse_token(const char *s, struct sgf_entry *e)
{
	struct scsi_filter_token t;
	unsigned int i;

	if (scsi_filter_parse_token(s, s + strlen(s), &t))
		return -1;
	memset(e, 0, sizeof(*e));
	e->opcode = (unsigned char)t.opcode;
	e->nr_fields = (unsigned char)t.nr_fields;
	for (i = 0; i < t.nr_fields; i++)
		e->f[i] = (struct sgf_field){
			.offset = (unsigned char)t.field[i].offset,
			.width = (unsigned char)t.field[i].width,
			.mask = (unsigned short)t.field[i].mask,
			.value = (unsigned short)t.field[i].value,
		};
	return 0;
}

void sgf_format_token(const struct sgf_entry *e, char *buf, size_t len)
{
	const struct sgf_field *f = e->f;
	size_t used;
	unsigned int i;

	used = (size_t)snprintf(buf, len, "0x%02x", e->opcode);
	if (sgf_service_action(e) >= 0) {
		snprintf(buf + used, used < len ? len - used : 0, "/sa=0x%0*x",
			 f->width == 2 ? 4 : 2, f->value);
		return;
	}
	for (i = 0; i < e->nr_fields && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "/cdb%u&0x%02x=0x%02x",
					 f[i].offset, f[i].mask, f[i].value);
}

static struct scsi_filter_token entry_token(const struct sgf_entry *e)
{
	struct scsi_filter_token t = {
		.opcode = e->opcode, .nr_fields = e->nr_fields,
		.match = !e->nr_fields ? SCSI_FILTER_MATCH_ALL :
			 sgf_service_action(e) >= 0 ? SCSI_FILTER_MATCH_SA :
			 SCSI_FILTER_MATCH_FIELD,
	};
	unsigned int i;

	for (i = 0; i < e->nr_fields; i++)
		t.field[i] = (struct scsi_filter_token_field){
			.offset = e->f[i].offset, .width = e->f[i].width,
			.mask = e->f[i].mask, .value = e->f[i].value,
		};
	return t;
}

/* The kernel's order of rules, by the kernel's own scsi_filter_token_cmp(). */
static int entry_cmp(const void *pa, const void *pb)
{
	struct scsi_filter_token a = entry_token(pa), b = entry_token(pb);

	return scsi_filter_token_cmp(&a, &b);
}

int sgf_same(const struct sgf_entry *a, const struct sgf_entry *b)
{
	return !entry_cmp(a, b);
}

/*
 * Would the kernel refuse @a and @b in one policy? They are of different
 * classes, a CDB can match both, and neither implies the other, so that
 * only the order of their bytes would decide: the kernel's own
 * scsi_filter_token_ambiguous().
 */
int sgf_ambiguous(const struct sgf_entry *a, const struct sgf_entry *b)
{
	struct scsi_filter_token ta = entry_token(a), tb = entry_token(b);

	return a->opcode == b->opcode && a->cls != b->cls &&
	       scsi_filter_token_ambiguous(&ta, &tb);
}

void sgf_sort(struct sgf_policy *p)
{
	qsort(p->e, p->n, sizeof(p->e[0]), entry_cmp);
}

/*
 * Append the commands of @text with class @cls. Returns 0, or -1 with the
 * offending token in @bad if one is malformed, given twice, or if there is
 * no room.
 */
int sgf_parse_list(struct sgf_policy *p, const char *text, enum sgf_class cls,
		   char *bad, size_t badlen)
{
	char tok[SGF_TOKEN_MAX + 1];
	size_t n;

	while (*text) {
		if (isspace((unsigned char)*text)) {
			text++;
			continue;
		}
		n = strcspn(text, " \t\n\r\v\f");
		snprintf(bad, badlen, "%.*s", (int)n, text);
		if (n > SGF_TOKEN_MAX || p->n == SGF_MAX_ENTRIES)
			return -1;
		memcpy(tok, text, n);
		tok[n] = '\0';
		if (sgf_parse_token(tok, &p->e[p->n]) || sgf_find(p, &p->e[p->n]))
			return -1;
		p->e[p->n++].cls = cls;
		text += n;
	}
	return 0;
}

const struct sgf_entry *sgf_find(const struct sgf_policy *p,
				 const struct sgf_entry *key)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (sgf_same(&p->e[i], key))
			return &p->e[i];
	return NULL;
}

/* Remove @key's entry; returns 1 if there was one. */
int sgf_remove(struct sgf_policy *p, const struct sgf_entry *key)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (!sgf_same(&p->e[i], key))
			continue;
		memmove(&p->e[i], &p->e[i + 1], (p->n - i - 1) * sizeof(p->e[0]));
		p->n--;
		return 1;
	}
	return 0;
}

static const struct sgf_default *find_default(const char *set)
{
	size_t i;

	for (i = 0; i < sizeof(sgf_defaults) / sizeof(sgf_defaults[0]); i++)
		if (!strcmp(sgf_defaults[i].set, set))
			return &sgf_defaults[i];
	return NULL;
}

/* The default policy of a command set; -1 for an unknown set. */
int sgf_default_policy(const char *set, struct sgf_policy *p)
{
	const struct sgf_default *d = find_default(set);
	char bad[SGF_TOKEN_MAX + 1];

	memset(p, 0, sizeof(*p));
	if (!d)
		return -1;
	snprintf(p->set, sizeof(p->set), "%s", set);
	if (sgf_parse_list(p, d->read, SGF_READ, bad, sizeof(bad)) ||
	    sgf_parse_list(p, d->write, SGF_WRITE, bad, sizeof(bad)) ||
	    sgf_parse_list(p, d->priv, SGF_PRIV, bad, sizeof(bad)))
		return -1;
	sgf_sort(p);
	return 0;
}

/* The command set of a peripheral device type (INQUIRY byte 0, bits 0-4). */
const char *sgf_set_of_type(unsigned int type)
{
	size_t i;

	for (i = 0; i < sizeof(sgf_type_sets) / sizeof(sgf_type_sets[0]); i++)
		if (sgf_type_sets[i].type == (type & 0x1f))
			return sgf_type_sets[i].set;
	return "other";
}

/* The commands of one class as the kernel's file lists them. */
size_t sgf_format_class(const struct sgf_policy *p, enum sgf_class cls,
			char *buf, size_t len)
{
	char tok[SGF_TOKEN_MAX + 1];
	size_t i, used = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < p->n; i++) {
		if (p->e[i].cls != cls)
			continue;
		sgf_format_token(&p->e[i], tok, sizeof(tok));
		used += (size_t)snprintf(buf + (used < len ? used : len),
					 used < len ? len - used : 0, "%s%s",
					 used ? " " : "", tok);
	}
	return used;
}

/*
 * The class of a CDB under @p (sorted), as the kernel decides: the first
 * field entry of the opcode that matches, a field beyond the CDB making it
 * privileged, then the whole entry, else privileged. @why gets the entry
 * that decided, or NULL; @short_cdb is set if the CDB was too short.
 */
enum sgf_class sgf_decide(const struct sgf_policy *p,
			  const unsigned char *cdb, size_t len,
			  const struct sgf_entry **why, int *short_cdb)
{
	const struct sgf_entry *e, *whole = NULL;
	const struct sgf_field *f;
	unsigned int field, k;
	size_t i;

	*why = NULL;
	*short_cdb = 0;
	if (!len)
		return SGF_PRIV;
	for (i = 0; i < p->n; i++) {
		e = &p->e[i];
		if (e->opcode != cdb[0])
			continue;
		if (!e->nr_fields) {
			whole = e;
			continue;
		}
		/* the fields are in the order of their bytes */
		f = &e->f[e->nr_fields - 1];
		if ((size_t)f->offset + f->width > len) {
			*why = e;
			*short_cdb = 1;
			return SGF_PRIV;
		}
		for (k = 0; k < e->nr_fields; k++) {
			f = &e->f[k];
			field = f->width == 2 ? (unsigned int)cdb[f->offset] << 8 |
						cdb[f->offset + 1] : cdb[f->offset];
			if ((field & f->mask) != f->value)
				break;
		}
		if (k == e->nr_fields) {
			*why = e;
			return e->cls;
		}
	}
	*why = whole;
	return whole ? whole->cls : SGF_PRIV;
}

/* The service action an entry names, or -1. */
int sgf_service_action(const struct sgf_entry *e)
{
	const struct sgf_field *f = e->f;

	if (e->nr_fields != 1)
		return -1;
	if (f->width == 2)
		return f->value;
	if (f->offset == 1 && f->mask == 0x1f && e->opcode != 0x7f)
		return f->value;
	return -1;
}

const char *sgf_name(const char *set, unsigned char opcode, int sa)
{
	const struct sgf_default *d = find_default(set);
	const char *whole = NULL;
	size_t i;

	for (i = 0; d && i < d->nr_names; i++) {
		if (d->names[i].opcode != opcode)
			continue;
		if (sa >= 0 && d->names[i].sa == sa)
			return d->names[i].name;
		if (d->names[i].sa < 0)
			whole = d->names[i].name;
	}
	if (whole)
		return whole;
	return opcode >= 0xc0 ? "vendor specific" : "";
}

/* The name of an entry: by its CDB field if the policy names that. */
const char *sgf_entry_name(const char *set, const struct sgf_entry *e)
{
	const struct sgf_default *d = find_default(set);
	const struct sgf_field_name *f;
	char tok[SGF_TOKEN_MAX + 1];

	if (d && e->nr_fields && sgf_service_action(e) < 0) {
		sgf_format_token(e, tok, sizeof(tok));
		for (f = d->fields; f->token; f++)
			if (!strcmp(f->token, tok))
				return f->name;
	}
	return sgf_name(set, e->opcode, sgf_service_action(e));
}

/*
 * A name made comparable: lowercase letters and digits only, without
 * parenthesized remarks ("(firmware download)") but keeping sizes ("(10)").
 */
static void normalize(const char *s, char *out, size_t len)
{
	size_t n = 0, k;

	while (*s && n + 1 < len) {
		if (*s == '(') {
			k = strspn(s + 1, "0123456789");
			if (k && s[1 + k] == ')') {
				s++;
				continue;
			}
			k = strcspn(s, ")");
			s += s[k] ? k + 1 : k;
			continue;
		}
		if (isalnum((unsigned char)*s))
			out[n++] = (char)tolower((unsigned char)*s);
		s++;
	}
	out[n] = '\0';
}

/*
 * A command given by the user: a token, or a name of the device's command
 * set ("unmap", "READ(10)", "write-buffer"). Returns 0, or -1 with a
 * message in @err.
 */
int sgf_lookup_name(const char *set, const char *word, struct sgf_entry *e,
		    char *err, size_t errlen)
{
	const struct sgf_default *d = find_default(set);
	char want[128], have[128];
	const struct sgf_name *hit = NULL;
	size_t i;

	if (!strncmp(word, "0x", 2)) {
		if (sgf_parse_token(word, e)) {
			snprintf(err, errlen, "malformed command '%s' (write 0x28, "
				 "0x9e/sa=0x10, 0xa3/cdb10&0x3f=0x06 or "
				 "0x85/cdb1&0x1e=0x08/cdb14&0xff=0xec)", word);
			return -1;
		}
		return 0;
	}
	normalize(word, want, sizeof(want));
	for (i = 0; d && *want && i < d->nr_names; i++) {
		normalize(d->names[i].name, have, sizeof(have));
		if (strcmp(have, want))
			continue;
		if (hit && (hit->opcode != d->names[i].opcode || hit->sa != d->names[i].sa)) {
			snprintf(err, errlen, "'%s' names more than one %s command; "
				 "give the opcode instead", word, set);
			return -1;
		}
		hit = &d->names[i];
	}
	if (!hit) {
		snprintf(err, errlen, "unknown command '%s' for command set %s",
			 word, set);
		return -1;
	}
	memset(e, 0, sizeof(*e));
	e->opcode = hit->opcode;
	if (hit->sa >= 0) {
		char tok[SGF_TOKEN_MAX + 1];

		snprintf(tok, sizeof(tok), hit->opcode == 0x7f ? "0x%02x/sa=0x%04x" :
			 "0x%02x/sa=0x%02x", hit->opcode, hit->sa);
		return sgf_parse_token(tok, e);
	}
	return 0;
}

const char *sgf_class_name(enum sgf_class cls)
{
	return cls == SGF_READ ? "read" : cls == SGF_WRITE ? "write" : "priv";
}
