// SPDX-License-Identifier: GPL-2.0
/*
 * sgfilter - show and change the per-device policy of the kernel's SCSI
 * command filter. See sgfilter.8.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgfilter.h"

#define SGF_VERSION "1.0"

static int json;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sgfilter [--json] show DEV\n"
		"       sgfilter [--json] stats DEV\n"
		"       sgfilter [--json] check DEV CDB...\n"
		"       sgfilter allow [-w] DEV COMMAND...\n"
		"       sgfilter deny DEV COMMAND...\n"
		"       sgfilter reset DEV\n"
		"       sgfilter unfiltered DEV 0|1\n"
		"DEV: /dev/sdX, /dev/srN, /dev/sgN, /dev/bsg/H:C:T:L or H:C:T:L\n"
		"COMMAND: a name of the device's command set (unmap, \"READ(10)\"),\n"
		"         or 0x28, 0x9e/sa=0x10, 0xa3/cdb10&0x3f=0x06\n"
		"CDB: hex bytes, as sg_raw takes them (42 00 00 00 00 00 00 00 08 00)\n"
		"Exit: 0 done, 1 usage, 2 no such device, 3 not permitted,\n"
		"      4 unknown or malformed command, 5 kernel without the feature,\n"
		"      6 kernel refused the policy, 7 other error\n");
}

static int fail(int code, const char *msg)
{
	fprintf(stderr, "sgfilter: %s\n", msg);
	return code;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The class a command has under @p: its entry's, or its opcode's. */
static enum sgf_class class_in(const struct sgf_policy *p,
			       const struct sgf_entry *key)
{
	struct sgf_entry whole = { .opcode = key->opcode };
	const struct sgf_entry *e = sgf_find(p, key);

	if (e)
		return e->cls;
	if (key->nr_fields && (e = sgf_find(p, &whole)))
		return e->cls;
	return SGF_PRIV;
}

/* cmd_filter/unfiltered (for a disk, the same as queue/unpriv_sgio): 1, 0,
 * or -1 where the kernel has no such file */
static int read_unfiltered(const struct sgf_device *d)
{
	char buf[8], err[1024];

	if (sgf_read_attr(d, "unfiltered", buf, sizeof(buf), err, sizeof(err)))
		return -1;
	return !strcmp(buf, "1") ? 1 : !strcmp(buf, "0") ? 0 : -1;
}

static int cmd_show(const struct sgf_device *d)
{
	static struct sgf_policy p, def, all;
	char err[1024], tok[SGF_TOKEN_MAX + 1];
	int custom, ret, sgio, first = 1;
	size_t i, diffs = 0;

	ret = sgf_load(d, &p, &custom, err, sizeof(err));
	if (ret)
		return fail(ret, err);
	if (sgf_default_policy(p.set, &def))
		memset(&def, 0, sizeof(def));
	/* every command either policy names */
	all = p;
	for (i = 0; i < def.n && all.n < SGF_MAX_ENTRIES; i++)
		if (!sgf_find(&all, &def.e[i]))
			all.e[all.n++] = def.e[i];
	sgf_sort(&all);
	sgio = read_unfiltered(d);

	if (json) {
		printf("{\"device\":");
		json_str(d->hctl);
		printf(",\"command_set\":");
		json_str(p.set);
		printf(",\"custom\":%s,\"unfiltered\":%d,\"commands\":[",
		       custom ? "true" : "false", sgio);
	} else {
		printf("%s: command set %s, %s policy%s\n", d->hctl, p.set,
		       custom ? "its own" : "the default",
		       sgio == 1 ? "; unfiltered=1: NOT FILTERED for writable opens" : "");
		printf("%-6s %-22s %s\n", "class", "command", "name");
	}
	for (i = 0; i < all.n; i++) {
		enum sgf_class now = class_in(&p, &all.e[i]);
		enum sgf_class was = class_in(&def, &all.e[i]);

		sgf_format_token(&all.e[i], tok, sizeof(tok));
		diffs += now != was;
		if (json) {
			printf("%s{\"command\":\"%s\",\"name\":", first ? "" : ",", tok);
			json_str(sgf_entry_name(p.set, &all.e[i]));
			printf(",\"class\":\"%s\",\"default\":\"%s\"}",
			       sgf_class_name(now), sgf_class_name(was));
			first = 0;
			continue;
		}
		if (now == SGF_PRIV && was == SGF_PRIV && !all.e[i].nr_fields)
			continue;	/* only named to be named */
		printf("%-5s%s %-22s %s", sgf_class_name(now), now != was ? "*" : " ",
		       tok, sgf_entry_name(p.set, &all.e[i]));
		if (now != was)
			printf("  (default: %s)", sgf_class_name(was));
		putchar('\n');
	}
	if (json)
		printf("],\"differences\":%zu}\n", diffs);
	else
		printf("read: any open; write: an open for writing; priv: CAP_SYS_RAWIO; "
		       "any other command: priv\n%zu difference%s from the default "
		       "policy (marked *)\n", diffs, diffs == 1 ? "" : "s");
	return 0;
}

/*
 * The series counts refusals (cmd_filter/denied); the workbench's kernels
 * also count allowed commands (cmd_filter/allowed), shown when present.
 */
static int cmd_stats(const struct sgf_device *d)
{
	char allowed[64], denied[64], err[1024];
	int ret, have_allowed;

	ret = sgf_read_attr(d, "denied", denied, sizeof(denied), err, sizeof(err));
	if (ret)
		return fail(ret, err);
	have_allowed = !sgf_read_attr(d, "allowed", allowed, sizeof(allowed), err,
				      sizeof(err));
	if (json && have_allowed)
		printf("{\"device\":\"%s\",\"allowed\":%s,\"denied\":%s}\n", d->hctl,
		       allowed, denied);
	else if (json)
		printf("{\"device\":\"%s\",\"denied\":%s}\n", d->hctl, denied);
	else if (have_allowed)
		printf("%s: %s allowed, %s denied\n", d->hctl, allowed, denied);
	else
		printf("%s: %s denied\n", d->hctl, denied);
	return 0;
}

/* Hex bytes, one per argument ("42") or run together ("4200"). */
static int parse_cdb(char **argv, int argc, unsigned char *cdb, size_t *len)
{
	int i;
	size_t k, n;

	*len = 0;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "0x", 2))
			a += 2;
		n = strlen(a);
		if (!n || strspn(a, "0123456789abcdefABCDEF") != n ||
		    (n > 2 && n % 2))
			return -1;
		for (k = 0; k < n; k += n == 1 ? 1 : 2) {
			char b[3] = { a[k], n == 1 ? '\0' : a[k + 1], '\0' };

			if (*len == 260)
				return -1;
			cdb[(*len)++] = (unsigned char)strtoul(b, NULL, 16);
		}
	}
	return *len ? 0 : -1;
}

static int cmd_check(const struct sgf_device *d, char **argv, int argc)
{
	static struct sgf_policy p;
	const struct sgf_entry *why;
	unsigned char cdb[260];
	char err[1024], tok[SGF_TOKEN_MAX + 1], reason[256], what[SGF_TOKEN_MAX + 1];
	const char *ro, *rw, *name;
	enum sgf_class cls;
	int custom, ret, sgio, short_cdb, sa = -1, sg_all;
	size_t len, i;

	if (parse_cdb(argv, argc, cdb, &len))
		return fail(SGF_E_COMMAND, "malformed CDB: give hex bytes, as in 12 00 00 00 24 00");
	ret = sgf_load(d, &p, &custom, err, sizeof(err));
	if (ret)
		return fail(ret, err);
	sgio = read_unfiltered(d);
	sg_all = sgf_sg_filter_all(d);
	cls = sgf_decide(&p, cdb, len, &why, &short_cdb);
	if (why)
		sa = sgf_service_action(why);
	name = why ? sgf_entry_name(p.set, why) : sgf_name(p.set, cdb[0], sa);
	snprintf(what, sizeof(what), "0x%02x", cdb[0]);
	if (why && why->nr_fields) {
		sgf_format_token(why, tok, sizeof(tok));
		snprintf(what, sizeof(what), "%s", tok);
	}
	ro = cls == SGF_READ ? "allowed" : "denied";
	rw = cls != SGF_PRIV ? "allowed" : "denied";
	if (short_cdb)
		snprintf(reason, sizeof(reason), "the CDB is too short for %s's "
			 "field, so it needs CAP_SYS_RAWIO", what);
	else if (why)
		snprintf(reason, sizeof(reason), "%s is %s in the %s policy "
			 "of command set %s", what, sgf_class_name(cls),
			 custom ? "device's own" : "default", p.set);
	else
		snprintf(reason, sizeof(reason), "%s is in no class of command "
			 "set %s, so it needs CAP_SYS_RAWIO", what, p.set);
	/* the switch opens the device to writable opens only */
	if (sgio == 1) {
		rw = "allowed";
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "; unfiltered is 1: a writable open is not filtered");
	}
	if (json) {
		printf("{\"device\":\"%s\",\"cdb\":\"", d->hctl);
		for (i = 0; i < len; i++)
			printf("%s%02x", i ? " " : "", cdb[i]);
		printf("\",\"command\":\"%s\",\"name\":", what);
		json_str(name);
		printf(",\"class\":\"%s\",\"read_only_open\":\"%s\","
		       "\"writable_open\":\"%s\",\"reason\":", sgf_class_name(cls), ro, rw);
		json_str(reason);
		printf(",\"sg_read_write_open\":\"%s\"}\n",
		       sg_all == 0 ? "unfiltered" : sg_all == 1 ? "filtered" : "unknown");
		return 0;
	}
	printf("%s: %s %s\n", d->hctl, what, *name ? name : "(unnamed)");
	printf("  read-only open:  %s\n  writable open:   %s\n"
	       "  with CAP_SYS_RAWIO: allowed\n  why: %s\n", ro, rw, reason);
	if (sg_all == 0)
		printf("  SG_IO on a read-write open of its sg node: not filtered, as\n"
		       "  Linux never filtered it (sg filters it only with sg.filter_all\n"
		       "  or the sg device's filter_all)\n");
	else if (sg_all == 1)
		printf("  SG_IO on a read-write open of its sg node: filtered as a\n"
		       "  writable open (sg.filter_all, or the sg device's filter_all,\n"
		       "  is set)\n");
	return 0;
}

/*
 * The device's policy, and the commands named on the command line (at most
 * 256, as main() allows), all resolved before anything changes.
 */
static int load_commands(const struct sgf_device *d, struct sgf_policy *p,
			 char **argv, int argc, struct sgf_entry *keys)
{
	char err[1024];
	int custom, ret, i;

	ret = sgf_load(d, p, &custom, err, sizeof(err));
	if (ret)
		return fail(ret, err);
	for (i = 0; i < argc; i++)
		if (sgf_lookup_name(p->set, argv[i], &keys[i], err, sizeof(err)))
			return fail(SGF_E_COMMAND, err);
	return 0;
}

/*
 * Give the commands @keys class @cls in one write of "+" edits, which the
 * kernel applies all or nothing: no other command, and no change another
 * administrator makes meanwhile, is touched. Commands the kernel would
 * refuse together with one the policy has are named here first.
 */
static int edit(const struct sgf_device *d, const struct sgf_policy *p,
		enum sgf_class cls, const struct sgf_entry *keys, int n)
{
	static char buf[256 * (SGF_TOKEN_MAX + 2) + 2];
	char err[1024], tok[SGF_TOKEN_MAX + 1], other[SGF_TOKEN_MAX + 1];
	struct sgf_entry key;
	size_t len = 0, k;
	int i, j, ret;

	/* say which commands the kernel would refuse together, and why */
	for (i = 0; i < n; i++) {
		key = keys[i];
		key.cls = cls;
		if (cls == SGF_PRIV && !key.nr_fields)
			continue;	/* every entry of the opcode goes */
		for (k = 0; k < p->n; k++) {
			if (sgf_same(&p->e[k], &key) || !sgf_ambiguous(&p->e[k], &key))
				continue;
			sgf_format_token(&key, tok, sizeof(tok));
			sgf_format_token(&p->e[k], other, sizeof(other));
			snprintf(err, sizeof(err),
				 "%s (%s) and %s (%s) can match one CDB, and neither tests every bit the other tests: only their order would decide, so the kernel refuses them together",
				 tok, sgf_class_name(cls), other, sgf_class_name(p->e[k].cls));
			return fail(SGF_E_REFUSED, err);
		}
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && !sgf_same(&keys[j], &keys[i]); j++)
			;
		if (j < i)
			continue;	/* named twice: one change */
		sgf_format_token(&keys[i], tok, sizeof(tok));
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s+%s",
					len ? " " : "", tok);
	}
	snprintf(buf + len, sizeof(buf) - len, "\n");
	ret = sgf_write_attr(d, sgf_class_name(cls), buf, err, sizeof(err));
	return ret ? fail(ret, err) : 0;
}

static int cmd_allow(const struct sgf_device *d, char **argv, int argc,
		     enum sgf_class cls)
{
	static struct sgf_policy p;
	static struct sgf_entry keys[256];
	char tok[SGF_TOKEN_MAX + 1];
	int ret, i;

	ret = load_commands(d, &p, argv, argc, keys);
	if (!ret)
		ret = edit(d, &p, cls, keys, argc);
	if (ret)
		return ret;
	for (i = 0; i < argc; i++) {
		sgf_format_token(&keys[i], tok, sizeof(tok));
		printf("%s: %s %s: %s\n", d->hctl, tok,
		       sgf_entry_name(p.set, &keys[i]),
		       cls == SGF_READ ? "any open" : "an open for writing");
	}
	return 0;
}

/* "+" in priv: a whole opcode loses every entry, a field gets an exception. */
static int cmd_deny(const struct sgf_device *d, char **argv, int argc)
{
	static struct sgf_policy p;
	static struct sgf_entry keys[256];
	char tok[SGF_TOKEN_MAX + 1];
	int ret, i;

	ret = load_commands(d, &p, argv, argc, keys);
	if (!ret)
		ret = edit(d, &p, SGF_PRIV, keys, argc);
	if (ret)
		return ret;
	for (i = 0; i < argc; i++) {
		sgf_format_token(&keys[i], tok, sizeof(tok));
		printf("%s: %s %s: needs CAP_SYS_RAWIO\n", d->hctl, tok,
		       sgf_entry_name(p.set, &keys[i]));
	}
	return 0;
}

static int cmd_reset(const struct sgf_device *d)
{
	char err[1024];
	int ret = sgf_write_attr(d, "reset", "1\n", err, sizeof(err));

	if (ret)
		return fail(ret, err);
	printf("%s: default policy\n", d->hctl);
	return 0;
}

static int cmd_unfiltered(const struct sgf_device *d, const char *val)
{
	char err[1024];
	int ret;

	if (strcmp(val, "0") && strcmp(val, "1"))
		return fail(SGF_E_USAGE, "unfiltered takes 0 (filter the device) or 1 (do not)");
	ret = sgf_write_attr(d, "unfiltered", val, err, sizeof(err));
	if (ret)
		return fail(ret, err);
	printf("%s: %s\n", d->hctl, *val == '1' ?
	       "NOT FILTERED for writable opens: any process that opened it for writing\n"
	       "  may send any command; a read-only open is filtered as before" :
	       "filtered");
	return 0;
}

int main(int argc, char **argv)
{
	char *args[256], err[1024];
	const char *cmd;
	struct sgf_device d;
	int i, n = 0, writable = 0, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "-w") || !strcmp(argv[i], "--write"))
			writable = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("sgfilter %s\n", SGF_VERSION);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "sgfilter: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return SGF_E_USAGE;
		} else if (n < (int)(sizeof(args) / sizeof(args[0]))) {
			args[n++] = argv[i];
		} else {
			return fail(SGF_E_USAGE, "too many arguments");
		}
	}
	if (n < 2) {
		usage(stderr);
		return SGF_E_USAGE;
	}
	cmd = args[0];
	if (strcmp(cmd, "show") && strcmp(cmd, "stats") && strcmp(cmd, "check") &&
	    strcmp(cmd, "allow") && strcmp(cmd, "deny") && strcmp(cmd, "reset") &&
	    strcmp(cmd, "unfiltered")) {
		fprintf(stderr, "sgfilter: unknown command '%s'\n", cmd);
		usage(stderr);
		return SGF_E_USAGE;
	}
	if ((!strcmp(cmd, "show") || !strcmp(cmd, "stats") || !strcmp(cmd, "reset")) &&
	    n != 2)
		return fail(SGF_E_USAGE, "too many arguments");
	if ((!strcmp(cmd, "check") || !strcmp(cmd, "allow") || !strcmp(cmd, "deny")) &&
	    n < 3)
		return fail(SGF_E_USAGE, !strcmp(cmd, "check") ? "no CDB given" :
			    "no command given");
	if (!strcmp(cmd, "unfiltered") && n != 3)
		return fail(SGF_E_USAGE, "unfiltered takes DEV and 0 or 1");
	if (writable && strcmp(cmd, "allow"))
		return fail(SGF_E_USAGE, "-w is for allow");
	ret = sgf_resolve(args[1], &d, err, sizeof(err));
	if (ret)
		return fail(ret, err);
	if (!strcmp(cmd, "show"))
		return cmd_show(&d);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(&d);
	if (!strcmp(cmd, "check"))
		return cmd_check(&d, args + 2, n - 2);
	if (!strcmp(cmd, "allow"))
		return cmd_allow(&d, args + 2, n - 2, writable ? SGF_WRITE : SGF_READ);
	if (!strcmp(cmd, "deny"))
		return cmd_deny(&d, args + 2, n - 2);
	if (!strcmp(cmd, "unfiltered"))
		return cmd_unfiltered(&d, args[2]);
	return cmd_reset(&d);
}
