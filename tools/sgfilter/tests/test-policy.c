// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of sgfilter's policy model (policy.c), run under ASan/UBSan
 * by "make check". TAP output, one line per check.
 */
#include <stdio.h>
#include <string.h>

#include "sgfilter.h"
#include "default_policy.h"

static int n, failed;

/* every check's identifier, to hold them unique (sgfilter.unit.ids) */
#define MAX_CHECKS 128
#define ID_MAX 128
static char ids[MAX_CHECKS][ID_MAX];
static int nr_ids, bad_ids;

/*
 * check(OK, ID, WHAT): the result line "ok - sgfilter.unit.ID: WHAT". ID
 * names the check, the same in every run; a second check of the same ID,
 * or an ID with a character a result line's identifier cannot hold, makes
 * sgfilter.unit.ids fail.
 */
static void check(int ok, const char *id, const char *what)
{
	const char *c;
	int i;

	for (c = id; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+/-", *c))
			break;
	if (!*id || *c || strlen(id) >= ID_MAX || nr_ids == MAX_CHECKS) {
		printf("# sgfilter.unit.%s: not a valid identifier, or too many checks\n", id);
		bad_ids++;
	} else {
		for (i = 0; i < nr_ids && strcmp(ids[i], id); i++)
			;
		if (i < nr_ids) {
			printf("# sgfilter.unit.%s: a second check of this identifier\n", id);
			bad_ids++;
		}
		snprintf(ids[nr_ids++], ID_MAX, "%s", id);
	}
	printf("%sok - sgfilter.unit.%s: %s\n", ok ? "" : "not ", id, what);
	n++;
	failed += !ok;
}

/* TOKEN as part of an identifier: '=', '&' and ',' become '_', "" "empty" */
static const char *token_id(const char *kind, const char *token, char *buf, size_t size)
{
	size_t i, len;

	len = (size_t)snprintf(buf, size, "token.%s.%s", kind, *token ? token : "empty");
	for (i = strlen("token.") + strlen(kind) + 1; i < len && i + 1 < size; i++)
		if (buf[i] && strchr("=&,", buf[i]))
			buf[i] = '_';
	return buf;
}

static enum sgf_class decide(const char *set, const unsigned char *cdb, size_t len)
{
	static struct sgf_policy p;
	const struct sgf_entry *why;
	int short_cdb;

	if (sgf_default_policy(set, &p))
		return (enum sgf_class)-1;
	return sgf_decide(&p, cdb, len, &why, &short_cdb);
}

int main(void)
{
	static const char *const good[] = {
		"0x28", "0x9e/sa=0x10", "0x7f/sa=0x000d", "0xa3/cdb10&0x3f=0x06",
		"0x00", "0xff", "0x9e/sa=0x1f", "0x7f/sa=0xffff",
		"0x85/cdb1&0x1e=0x08/cdb14&0xff=0xec",
		"0x85/cdb1&0x1f=0x09/cdb2&0x08=0x08/cdb3&0xff=0x00/cdb4&0xff=0x00/cdb14&0xff=0x2f",
		"0x85/cdb1&0x1f=0x10/cdb2&0x01=0x01",
	};
	static const char *const bad[] = {
		"", "0x", "28", "0x100", "0x028", "x28", "0X28", "0x28,0x2a",
		"0x9e/", "0x9e/sa=", "0x9e/sa=0x20", "0x9e/sa=10", "0x7f/sa=0x10000",
		"0x9e/sa=0x10x", "0x9e/SA=0x10", "0xa3/cdb0&0x3f=0x06",
		"0xa3/cdb32&0x3f=0x06", "0xa3/cdb10&0x00=0x00", "0xa3/cdb10&0x0f=0x10",
		"0xa3/cdb10&0x3f", "0xa3/cdb&0x3f=0x06", "0xa3/cdb10=0x06", "0xa3/x",
		"0x85/cdb14&0xff=0xec/cdb1&0x1e=0x08", "0x85/cdb1&0x1e=0x08/cdb1&0x01=0x01",
		"0x85/cdb1&0x1e=0x08/", "0x85/cdb1&0x1e=0x08//cdb14&0xff=0xec",
		"0x85/cdb1&0x1e=0x08/sa=0x01", "0x9e/sa=0x10/cdb14&0xff=0x00",
		"0x85/cdb1&0x01=0x01/cdb2&0x01=0x01/cdb3&0x01=0x01/cdb4&0x01=0x01/cdb5&0x01=0x01/cdb6&0x01=0x01/cdb7&0x01=0x01",
		"0x7f/cdb8&0xff=0x00/cdb9&0xff=0x0d",
	};
	static struct sgf_policy p;
	struct sgf_entry e;
	char buf[8192], msg[256], id[ID_MAX], bad_tok[64], err[256];
	size_t i;
	const struct sgf_default *d;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(msg, sizeof(msg), "'%s' parses and prints back", good[i]);
		buf[0] = '\0';
		if (!sgf_parse_token(good[i], &e))
			sgf_format_token(&e, buf, sizeof(buf));
		check(!strcmp(buf, good[i]), token_id("good", good[i], id, sizeof(id)), msg);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(msg, sizeof(msg), "'%s' is refused", bad[i]);
		check(sgf_parse_token(bad[i], &e) == -1, token_id("bad", bad[i], id, sizeof(id)), msg);
	}
	/* "cdb1&0x1f" on an opcode other than 0x7f is the service action */
	check(!sgf_parse_token("0x9e/cdb1&0x1f=0x10", &e) &&
	      (sgf_format_token(&e, buf, sizeof(buf)), !strcmp(buf, "0x9e/sa=0x10")),
	      "token.cdb1-is-sa", "0x9e/cdb1&0x1f=0x10 prints as 0x9e/sa=0x10");

	/* every default policy reads back as the kernel's files show it */
	for (i = 0; i < sizeof(sgf_defaults) / sizeof(sgf_defaults[0]); i++) {
		d = &sgf_defaults[i];
		snprintf(msg, sizeof(msg), "default %s policy loads and prints back", d->set);
		snprintf(id, sizeof(id), "default.%s", d->set);
		check(!sgf_default_policy(d->set, &p) &&
		      sgf_format_class(&p, SGF_READ, buf, sizeof(buf)) < sizeof(buf) &&
		      !strcmp(buf, d->read) &&
		      (sgf_format_class(&p, SGF_WRITE, buf, sizeof(buf)), !strcmp(buf, d->write)) &&
		      (sgf_format_class(&p, SGF_PRIV, buf, sizeof(buf)), !strcmp(buf, d->priv)),
		      id, msg);
	}
	check(sgf_default_policy("nosuchset", &p) == -1, "default-unknown-set",
	      "unknown command set is refused");

	memset(&p, 0, sizeof(p));
	check(sgf_parse_list(&p, "0x28 0x2a 0x28", SGF_READ, bad_tok, sizeof(bad_tok)) == -1 &&
	      !strcmp(bad_tok, "0x28"), "list.duplicate", "a command listed twice is refused and named");
	memset(&p, 0, sizeof(p));
	check(sgf_parse_list(&p, "0x28 bogus", SGF_READ, bad_tok, sizeof(bad_tok)) == -1 &&
	      !strcmp(bad_tok, "bogus"), "list.malformed", "a malformed token is refused and named");
	memset(&p, 0, sizeof(p));
	for (i = 0; i < sizeof(buf) - 1; i++)
		buf[i] = i % 2 ? ' ' : 'x';
	buf[sizeof(buf) - 1] = '\0';
	check(sgf_parse_list(&p, buf, SGF_READ, bad_tok, sizeof(bad_tok)) == -1,
	      "list.long-junk", "a long list of junk is refused");

	{
		const unsigned char unmap[10] = { 0x42 }, region[12] = { 0xa3, [10] = 0x06 };
		const unsigned char css[12] = { 0xa3, [10] = 0x01 }, rc16[16] = { 0x9e, 0x10 };
		const unsigned char sai[16] = { 0x9e, 0x14 }, ws32[32] = { 0x7f, [9] = 0x0d };

		check(decide("sbc", unmap, 10) == SGF_WRITE, "decide.sbc-unmap",
		      "sbc: UNMAP needs a writable open");
		check(decide("mmc", unmap, 10) == SGF_READ, "decide.mmc-0x42",
		      "mmc: READ SUB-CHANNEL with any open");
		check(decide("other", unmap, 10) == SGF_PRIV, "decide.other-0x42",
		      "other: 0x42 is privileged");
		check(decide("mmc", region, 12) == SGF_PRIV, "decide.mmc-send-key-region",
		      "mmc: SEND KEY drive region is privileged");
		check(decide("mmc", css, 12) == SGF_READ, "decide.mmc-send-key-css",
		      "mmc: SEND KEY CSS with any open");
		check(decide("mmc", region, 6) == SGF_PRIV, "decide.mmc-send-key-short",
		      "mmc: SEND KEY cut short is privileged");
		check(decide("sbc", rc16, 16) == SGF_READ, "decide.sbc-read-capacity-16",
		      "sbc: READ CAPACITY(16) with any open");
		check(decide("sbc", sai, 16) == SGF_PRIV, "decide.sbc-service-action-in-other",
		      "sbc: other SERVICE ACTION IN(16) privileged");
		check(decide("sbc", ws32, 32) == SGF_WRITE, "decide.sbc-write-same-32",
		      "sbc: WRITE SAME(32) needs a writable open");
		check(decide("sbc", unmap, 0) == SGF_PRIV, "decide.empty-cdb",
		      "an empty CDB is privileged");
	}

	check(!sgf_lookup_name("sbc", "unmap", &e, err, sizeof(err)) && e.opcode == 0x42 &&
	      !e.nr_fields, "name.unmap", "name 'unmap' is 0x42 on sbc");
	check(!sgf_lookup_name("sbc", "READ(10)", &e, err, sizeof(err)) && e.opcode == 0x28,
	      "name.read-10", "name 'READ(10)' is 0x28");
	check(!sgf_lookup_name("sbc", "write-buffer", &e, err, sizeof(err)) && e.opcode == 0x3b,
	      "name.write-buffer", "name 'write-buffer' is 0x3b");
	check(!sgf_lookup_name("sbc", "read capacity(16)", &e, err, sizeof(err)) &&
	      e.opcode == 0x9e && sgf_service_action(&e) == 0x10,
	      "name.read-capacity-16", "name 'read capacity(16)' is 0x9e/sa=0x10");
	check(!sgf_lookup_name("smc", "move medium", &e, err, sizeof(err)) && e.opcode == 0xa5,
	      "name.move-medium-smc", "name 'move medium' is 0xa5 on smc");
	check(sgf_lookup_name("sbc", "move medium", &e, err, sizeof(err)) == -1 &&
	      strstr(err, "unknown command"), "name.move-medium-sbc",
	      "name 'move medium' is unknown on sbc");
	check(sgf_lookup_name("sbc", "0x9e/sa=0x99", &e, err, sizeof(err)) == -1 &&
	      strstr(err, "malformed"), "name.malformed", "a malformed token is reported as such");
	check(sgf_lookup_name("sbc", "()", &e, err, sizeof(err)) == -1, "name.parentheses",
	      "'()' is unknown");
	check(!strcmp(sgf_name("sbc", 0x42, -1), "UNMAP") &&
	      !strcmp(sgf_name("mmc", 0x42, -1), "READ SUB-CHANNEL") &&
	      !strcmp(sgf_name("sbc", 0x9e, 0x14), "SERVICE ACTION IN(16) (other service actions)") &&
	      !strcmp(sgf_name("sbc", 0xc5, -1), "vendor specific"),
	      "name.per-set", "names depend on the command set");

	{
		struct sgf_entry region;

		check(!sgf_parse_token("0xa3/cdb10&0x3f=0x06", &region) &&
		      !strcmp(sgf_entry_name("mmc", &region), "SEND KEY (RPC structure: drive region)") &&
		      (region.nr_fields = 0, !strcmp(sgf_entry_name("mmc", &region),
						 "SEND KEY (CSS authentication)")),
		      "name.cdb-field", "a CDB-field entry has its own name");
	}
	/* (not through check(): it is the check of the identifiers) */
	printf("%sok - sgfilter.unit.ids: each of the %d checks above has an identifier of its own\n",
	       bad_ids ? "not " : "", n);
	failed += bad_ids != 0;
	printf("# %d checks, %d failed\n", n + 1, failed);
	return failed != 0;
}
