// SPDX-License-Identifier: GPL-2.0
/*
 * sgfilter's model held against the conformance cases, the one table of
 * cases generated from the policy document by policy/model --cases: each
 * line "SET CDB CLASS", the CDB in hex. Prints one TAP line per command
 * set and the first disagreements as comments; exits 1 on any.
 *	conformance CASES_FILE
 */
#include <stdio.h>
#include <string.h>

#include "sgfilter.h"

#define NR_SETS 16	/* as many as gen_scsi_cmd_filter takes (MAX_SETS) */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int main(int argc, char **argv)
{
	char line[256], set[16], hex[2 * 64 + 1], want[8];
	static struct sgf_policy p;
	struct {
		char name[16];
		unsigned long cases, bad;
	} sets[NR_SETS];
	const struct sgf_entry *why;
	const char *got;
	unsigned char cdb[64];
	int nsets = 0, failed = 0, short_cdb, i, s, hi, lo;
	unsigned long lineno = 0;
	size_t len;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: conformance CASES_FILE\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	memset(sets, 0, sizeof(sets));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (sscanf(line, "%15s %128s %7s", set, hex, want) != 3 ||
		    strlen(hex) % 2) {
			fprintf(stderr, "%s:%lu: malformed case\n", argv[1], lineno);
			return 2;
		}
		len = strlen(hex) / 2;
		for (i = 0; i < (int)len; i++) {
			hi = hexval(hex[2 * i]);
			lo = hexval(hex[2 * i + 1]);
			if (hi < 0 || lo < 0) {
				fprintf(stderr, "%s:%lu: bad hex\n", argv[1], lineno);
				return 2;
			}
			cdb[i] = hi << 4 | lo;
		}
		for (s = 0; s < nsets && strcmp(sets[s].name, set); s++)
			;
		if (s == nsets) {
			if (nsets == NR_SETS) {
				fprintf(stderr, "%s:%lu: too many sets\n", argv[1], lineno);
				return 2;
			}
			snprintf(sets[s].name, sizeof(sets[s].name), "%s", set);
			nsets++;
		}
		if (sgf_default_policy(set, &p)) {
			fprintf(stderr, "%s:%lu: sgfilter knows no set %s\n",
				argv[1], lineno, set);
			return 2;
		}
		sets[s].cases++;
		got = sgf_class_name(sgf_decide(&p, cdb, len, &why, &short_cdb));
		if (strcmp(got, want) && sets[s].bad++ < 5)
			printf("# %s %s: sgfilter says %s, the policy model %s\n",
			       set, hex, got, want);
	}
	fclose(f);
	if (!nsets) {
		printf("not ok - conformance.cases: %s holds no case\n", argv[1]);
		return 1;
	}
	for (s = 0; s < nsets; s++) {
		/* conformance.SET: a set's name is one word of the cases file */
		printf("%sok - conformance.%s: sgfilter's model and the policy model agree on %lu of the %lu %s cases\n",
		       sets[s].bad ? "not " : "", sets[s].name, sets[s].cases - sets[s].bad,
		       sets[s].cases, sets[s].name);
		failed |= !!sets[s].bad;
	}
	return failed;
}
