// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CAVS runner of the guest (boot mode "cavs").
 *
 * Loads the pack the host wrote (format in cavs.h), checks it whole before
 * running anything, then for each record opens the kernel's test
 * interface, writes the request, seeks back to 0, reads the response and
 * compares out2 with the expected ReturnedBits.  It reports on the results
 * channel:
 *
 *   {"type":"cavs_fail",...}     one line per failing record (file index,
 *                                line, section, expected and got in hex),
 *                                at most CAVS_MAX_FAIL_LINES of them;
 *   {"type":"cavs_section",...}  one line per pack section with counts and
 *                                the time spent in it;
 *   {"type":"cavs_done",...}     totals and the time of the whole run;
 *
 * With conform.kcapi=1 each record is also run through libkcapi and
 * AF_ALG (kcapi_drbg.h) and compared with the debugfs answer and with
 * ReturnedBits: {"type":"cavs_kcapi",...} per section (answered, equal to
 * each, errors, and the records the interface cannot carry by reason),
 * {"type":"cavs_kcapi_fail",...} per record that differs or fails, then
 * the checks guest.kcapi.<driver> of check_kcapi_instances();
 *
 * and the checks cavs.pack (only when the pack cannot be read) and
 * cavs.interface (pass, or skip when the debugfs file does not exist).
 * The host (harness/judges/cavs_judge.py) turns these into the report.
 *
 * Built with -DCAVS_HOST_TEST the runner gets a main(), and with
 * drbg_dev.c built with -DDRBG_DEV_FAKE it talks to a fake interface:
 * the host tests run it on a pack from cavs_pack.py.
 */
#include "cavs.h"
#include "checks.h"
#include "drbg_dev.h"
#include "kcapi_drbg.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the pack ---------------------------------------------------------- */

/* Write a message into why and return -1: the pack is not usable. */
static int bad(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_request(const uint8_t *req, uint32_t req_len,
			 uint32_t exp_len, char *why, size_t why_len)
{
	uint64_t sum = CAVS_REQ_HDR_LEN;
	int i;

	if (req_len < CAVS_REQ_HDR_LEN || req_len > CAVS_REQ_MAX)
		return bad(why, why_len, "request of %u bytes", req_len);
	if (memcmp(req, CAVS_REQ_MAGIC, 4))
		return bad(why, why_len, "request magic is not DCV1");
	if (get_le32(req + 4) != req_len)
		return bad(why, why_len, "request total_len %u in %u bytes",
			   get_le32(req + 4), req_len);
	if (get_le32(req + 12) != exp_len)
		return bad(why, why_len, "request out_len %u, expected %u bytes",
			   get_le32(req + 12), exp_len);
	if (exp_len < 1 || exp_len > CAVS_OUT_MAX)
		return bad(why, why_len, "out_len %u", exp_len);
	if (!memchr(req + 16, 0, 64))
		return bad(why, why_len, "driver name not NUL-terminated");
	for (i = 0; i < 9; i++)
		sum += get_le32(req + 80 + 4 * i);
	if (sum != req_len)
		return bad(why, why_len, "request lengths add up to %llu, not %u",
			   (unsigned long long)sum, req_len);
	return 0;
}

static int parse_tables(struct cavs_pack *p, char *why, size_t why_len)
{
	size_t pos = CAVS_PACK_HDR_LEN;
	uint32_t i;

	p->file_names = calloc(p->nfiles + 1, sizeof(*p->file_names));
	p->file_name_lens = calloc(p->nfiles + 1, sizeof(*p->file_name_lens));
	p->sections = calloc(p->nsections + 1, sizeof(*p->sections));
	if (!p->file_names || !p->file_name_lens || !p->sections)
		return bad(why, why_len, "out of memory");
	for (i = 0; i < p->nfiles; i++) {
		if (pos + 4 > p->len)
			return bad(why, why_len, "pack cut off in the file table");
		p->file_name_lens[i] = get_le32(p->buf + pos);
		p->file_names[i] = (const char *)p->buf + pos + 4;
		pos += 4 + (size_t)p->file_name_lens[i];
		if (pos > p->len)
			return bad(why, why_len, "pack cut off in the file table");
	}
	for (i = 0; i < p->nsections; i++) {
		struct cavs_section *s = &p->sections[i];

		if (pos + 8 > p->len)
			return bad(why, why_len, "pack cut off in the section table");
		s->file = get_le32(p->buf + pos);
		s->name_len = get_le32(p->buf + pos + 4);
		s->name = (const char *)p->buf + pos + 8;
		if (s->file >= p->nfiles)
			return bad(why, why_len, "section %u names file %u of %u",
				   i, s->file, p->nfiles);
		pos += 8 + (size_t)s->name_len;
		if (pos > p->len)
			return bad(why, why_len, "pack cut off in the section table");
	}
	if (pos != p->records_offset)
		return bad(why, why_len, "tables end at %zu, records_offset is %zu",
			   pos, p->records_offset);
	return 0;
}

static int pack_parse(struct cavs_pack *p, char *why, size_t why_len)
{
	char inner[200];
	size_t off;
	uint32_t i;

	if (p->len < CAVS_PACK_HDR_LEN + 8 || memcmp(p->buf, CAVS_PACK_MAGIC, 4))
		return bad(why, why_len, "not a CAVS pack (%zu bytes, no DCPK magic)",
			   p->len);
	if (get_le32(p->buf + 4) != CAVS_PACK_VERSION)
		return bad(why, why_len, "pack version %u, expected %u",
			   get_le32(p->buf + 4), CAVS_PACK_VERSION);
	p->nfiles = get_le32(p->buf + 8);
	p->nsections = get_le32(p->buf + 12);
	p->nrecords = get_le32(p->buf + 16);
	p->records_offset = get_le32(p->buf + 20);
	if (p->nfiles >= (1U << 20) || p->nsections >= (1U << 20))
		return bad(why, why_len, "implausible table sizes %u, %u",
			   p->nfiles, p->nsections);
	if (parse_tables(p, why, why_len))
		return -1;
	off = p->records_offset;
	for (i = 0; i < p->nrecords; i++) {
		struct cavs_record r;

		if (off + CAVS_REC_HDR_LEN > p->len)
			return bad(why, why_len, "pack cut off at record %u of %u",
				   i, p->nrecords);
		cavs_pack_record(p, &off, &r);
		if (off > p->len)
			return bad(why, why_len, "pack cut off inside record %u of %u",
				   i, p->nrecords);
		if (r.file >= p->nfiles || r.section >= p->nsections)
			return bad(why, why_len,
				   "record %u: file %u or section %u out of range",
				   i, r.file, r.section);
		if (check_request(r.req, r.req_len, r.exp_len, inner,
				  sizeof(inner)))
			return bad(why, why_len, "record %u (line %u): %s", i,
				   r.line, inner);
	}
	if (off + 8 != p->len || memcmp(p->buf + off, CAVS_PACK_END, 4) ||
	    get_le32(p->buf + off + 4) != p->nrecords)
		return bad(why, why_len,
			   "pack trailer missing or wrong (%zu bytes after the records)",
			   p->len - off);
	return 0;
}

int cavs_pack_load(struct cavs_pack *p, const char *path, char *why,
		   size_t why_len)
{
	int err;

	memset(p, 0, sizeof(*p));
	err = read_whole(path, &p->buf, &p->len);
	if (err) {
		snprintf(why, why_len, "cannot read %s: %s", path, strerror(-err));
		return -1;
	}
	if (pack_parse(p, why, why_len)) {
		cavs_pack_free(p);
		return -1;
	}
	return 0;
}

void cavs_pack_free(struct cavs_pack *p)
{
	free(p->buf);
	free(p->file_names);
	free(p->file_name_lens);
	free(p->sections);
	memset(p, 0, sizeof(*p));
}

void cavs_pack_record(const struct cavs_pack *p, size_t *off,
		      struct cavs_record *r)
{
	const uint8_t *h = p->buf + *off;

	r->file = get_le32(h);
	r->line = get_le32(h + 4);
	r->section = get_le32(h + 8);
	r->req_len = get_le32(h + 12);
	r->exp_len = get_le32(h + 16);
	r->req = h + CAVS_REC_HDR_LEN;
	r->exp = r->req + r->req_len;
	*off += CAVS_REC_HDR_LEN + (size_t)r->req_len + (size_t)r->exp_len;
}

/* ---- running records --------------------------------------------------- */

/* What libkcapi made of a section's records (conform.kcapi=1). */
struct kcapi_stats {
	unsigned int answered;		/* run through libkcapi without error */
	unsigned int same_debugfs;	/* out2 equal to the debugfs interface's */
	unsigned int same_expected;	/* out2 equal to ReturnedBits */
	unsigned int errors;		/* a libkcapi call failed */
	unsigned int beyond[KCAPI_BEYOND_N];
	long long us;
};

struct section_stats {
	unsigned int passed;
	unsigned int failed;
	long long us;
	struct kcapi_stats kcapi;
};

struct run {
	const struct cavs_pack *pack;
	uint8_t *resp;
	size_t resp_size;
	unsigned int fail_lines;
	unsigned int fail_lines_dropped;
	const uint8_t *debugfs_out2;	/* of the last record, or NULL */
	int kcapi;			/* conform.kcapi=1: also run libkcapi */
	unsigned int kcapi_fail_lines;
	unsigned int kcapi_fail_lines_dropped;
};

static int may_itemise(struct run *run)
{
	if (run->fail_lines >= CAVS_MAX_FAIL_LINES) {
		run->fail_lines_dropped++;
		return 0;
	}
	run->fail_lines++;
	return 1;
}

/* A failure of the harness or of the kernel call, not of the comparison. */
static void report_error(struct run *run, const struct cavs_record *r,
			 const char *stage, int err, uint32_t step)
{
	if (!may_itemise(run))
		return;
	if (stage)
		report_line("{\"type\":\"cavs_fail\",\"f\":%u,\"line\":%u,\"s\":%u,"
			    "\"len\":%u,\"stage\":\"%s\",\"err\":%d}",
			    r->file, r->line, r->section, r->exp_len, stage, err);
	else
		report_line("{\"type\":\"cavs_fail\",\"f\":%u,\"line\":%u,\"s\":%u,"
			    "\"len\":%u,\"err\":%d,\"step\":%u}",
			    r->file, r->line, r->section, r->exp_len, err, step);
}

static void report_mismatch(struct run *run, const struct cavs_record *r,
			    const uint8_t *got)
{
	char exp_hex[2 * CAVS_WINDOW + 1], got_hex[2 * CAVS_WINDOW + 1];
	uint32_t at = 0, from = 0, n;

	if (!may_itemise(run))
		return;
	while (at < r->exp_len && got[at] == r->exp[at])
		at++;
	if (r->exp_len > CAVS_WINDOW) {
		from = at - at % 16;
		if (from > r->exp_len - CAVS_WINDOW)
			from = r->exp_len - CAVS_WINDOW;
	}
	n = r->exp_len - from < CAVS_WINDOW ? r->exp_len - from : CAVS_WINDOW;
	hex_encode(exp_hex, r->exp + from, n);
	hex_encode(got_hex, got + from, n);
	report_line("{\"type\":\"cavs_fail\",\"f\":%u,\"line\":%u,\"s\":%u,"
		    "\"len\":%u,\"err\":0,\"step\":0,\"at\":%u,\"from\":%u,"
		    "\"expected\":\"%s\",\"got\":\"%s\"}",
		    r->file, r->line, r->section, r->exp_len, at, from, exp_hex,
		    got_hex);
}

/* Run one record; 1 if out2 is the expected value, 0 if not. */
static int run_record(struct run *run, const struct cavs_record *r)
{
	size_t want = CAVS_RESP_HDR_LEN + 2 * (size_t)r->exp_len;
	const uint8_t *resp = run->resp;
	const char *stage;
	long got;
	int err;

	run->debugfs_out2 = NULL;
	/* One byte of room beyond want shows an overlong answer. */
	got = drbg_dev_call(r->req, r->req_len, run->resp, want + 1, &stage);
	if (stage) {
		report_error(run, r, stage, (int)got, 0);
		return 0;
	}
	err = (int)get_le32(resp + 4);
	if (err) {
		report_error(run, r, NULL, err, get_le32(resp + 8));
		return 0;
	}
	if (get_le32(resp + 12) != r->exp_len || (size_t)got != want) {
		report_error(run, r, "response", -EMSGSIZE, 0);
		return 0;
	}
	run->debugfs_out2 = resp + CAVS_RESP_HDR_LEN + r->exp_len;
	if (memcmp(resp + CAVS_RESP_HDR_LEN + r->exp_len, r->exp, r->exp_len)) {
		report_mismatch(run, r, resp + CAVS_RESP_HDR_LEN + r->exp_len);
		return 0;
	}
	return 1;
}

/* One record through libkcapi, compared with debugfs and ReturnedBits. */
static void kcapi_record(struct run *run, const struct cavs_record *r,
			 struct kcapi_stats *ks)
{
	enum kcapi_beyond why = kcapi_drbg_beyond(r->req);
	uint8_t out2[KCAPI_RNG_MAXSIZE];
	char hex[2 * KCAPI_RNG_MAXSIZE + 1];
	const char *stage = NULL;
	int same_dbg, same_exp, err;

	if (why != KCAPI_CARRIED) {
		ks->beyond[why]++;
		return;
	}
	err = kcapi_drbg_answer(r->req, out2, &stage);
	if (err) {
		ks->errors++;
		if (run->kcapi_fail_lines++ < CAVS_MAX_FAIL_LINES)
			report_line("{\"type\":\"cavs_kcapi_fail\",\"f\":%u,"
				    "\"line\":%u,\"s\":%u,\"stage\":\"%s\","
				    "\"err\":%d}", r->file, r->line, r->section,
				    stage, err);
		else
			run->kcapi_fail_lines_dropped++;
		return;
	}
	ks->answered++;
	same_dbg = run->debugfs_out2 &&
		   !memcmp(out2, run->debugfs_out2, r->exp_len);
	same_exp = !memcmp(out2, r->exp, r->exp_len);
	ks->same_debugfs += same_dbg;
	ks->same_expected += same_exp;
	if (same_dbg && same_exp)
		return;
	if (run->kcapi_fail_lines++ >= CAVS_MAX_FAIL_LINES) {
		run->kcapi_fail_lines_dropped++;
		return;
	}
	hex_encode(hex, out2, r->exp_len);
	report_line("{\"type\":\"cavs_kcapi_fail\",\"f\":%u,\"line\":%u,"
		    "\"s\":%u,\"same_debugfs\":%s,\"debugfs_answered\":%s,"
		    "\"same_expected\":%s,\"got\":\"%s\"}", r->file, r->line,
		    r->section, same_dbg ? "true" : "false",
		    run->debugfs_out2 ? "true" : "false",
		    same_exp ? "true" : "false", hex);
}

static void report_kcapi(const struct cavs_pack *p,
			 const struct section_stats *st, const struct run *run)
{
	char beyond[512];
	uint32_t i;
	int b, n;

	for (i = 0; i < p->nsections; i++) {
		const struct kcapi_stats *ks = &st[i].kcapi;

		n = 0;
		for (b = 1; b < KCAPI_BEYOND_N; b++)
			n += snprintf(beyond + n, sizeof(beyond) - n, "%s\"%s\":%u",
				      b > 1 ? "," : "", kcapi_beyond_names[b],
				      ks->beyond[b]);
		report_line("{\"type\":\"cavs_kcapi\",\"s\":%u,\"answered\":%u,"
			    "\"same_debugfs\":%u,\"same_expected\":%u,"
			    "\"errors\":%u,\"beyond\":{%s},\"us\":%lld}", i,
			    ks->answered, ks->same_debugfs, ks->same_expected,
			    ks->errors, beyond, ks->us);
	}
	report_line("{\"type\":\"cavs_kcapi_done\",\"fail_lines_dropped\":%u}",
		    run->kcapi_fail_lines_dropped);
}

static void report_sections(const struct cavs_pack *p,
			    const struct section_stats *st)
{
	char name[256];
	uint32_t i;

	for (i = 0; i < p->nsections; i++) {
		const struct cavs_section *s = &p->sections[i];

		snprintf(name, sizeof(name), "%.*s", (int)s->name_len, s->name);
		report_line("{\"type\":\"cavs_section\",\"s\":%u,\"f\":%u,"
			    "\"name\":\"%s\",\"passed\":%u,\"failed\":%u,\"us\":%lld}",
			    i, s->file, name, st[i].passed, st[i].failed, st[i].us);
		say("cavs: %-28s %4u passed %4u failed %6.2f s  %.*s", name,
		    st[i].passed, st[i].failed, st[i].us / 1e6,
		    (int)p->file_name_lens[s->file], p->file_names[s->file]);
	}
}

void check_cavs(const char *pack_path)
{
	struct section_stats *st;
	unsigned int passed = 0, failed = 0;
	struct cavs_pack pack;
	struct cavs_record r;
	struct run run = { 0 };
	char why[512], flag[8];
	long long t0, t;
	size_t off;
	uint32_t i;
	int err;

	if (cavs_pack_load(&pack, pack_path, why, sizeof(why))) {
		report_check("cavs.pack", "fail", why, NULL);
		return;
	}
	err = drbg_dev_present();
	if (err) {
		snprintf(why, sizeof(why), "%s: %s (the kernel has no CAVS test "
			 "interface, or debugfs is not mounted)", CAVS_DEV,
			 strerror(-err));
		report_check("cavs.interface", err == -ENOENT ? "skip" : "fail",
			     why, NULL);
		cavs_pack_free(&pack);
		return;
	}
	report_check("cavs.interface", "pass", NULL, "\"path\":\"%s\"", CAVS_DEV);

	st = calloc(pack.nsections + 1, sizeof(*st));
	run.pack = &pack;
	run.resp_size = CAVS_RESP_HDR_LEN + 2 * (size_t)CAVS_OUT_MAX + 1;
	run.resp = malloc(run.resp_size);
	if (!st || !run.resp) {
		report_check("cavs.pack", "fail", "out of memory", NULL);
		goto out;
	}
	run.kcapi = cmdline_value("conform.kcapi", flag, sizeof(flag)) &&
		    !strcmp(flag, "1");
	if (run.kcapi && !kcapi_linked()) {
		report_check("cavs.kcapi", "skip", KCAPI_NONE_REASON, NULL);
		check_kcapi_instances();
		run.kcapi = 0;
	}
	say("cavs: %u records in %u sections from %u files%s", pack.nrecords,
	    pack.nsections, pack.nfiles,
	    run.kcapi ? ", each also through libkcapi" : "");
	t0 = now_us();
	off = pack.records_offset;
	for (i = 0; i < pack.nrecords; i++) {
		cavs_pack_record(&pack, &off, &r);
		t = now_us();
		if (run_record(&run, &r)) {
			st[r.section].passed++;
			passed++;
		} else {
			st[r.section].failed++;
			failed++;
		}
		st[r.section].us += now_us() - t;
		if (run.kcapi) {
			t = now_us();
			kcapi_record(&run, &r, &st[r.section].kcapi);
			st[r.section].kcapi.us += now_us() - t;
		}
		if ((i + 1) % 2000 == 0)
			say("cavs: %u of %u records, %u failed", i + 1,
			    pack.nrecords, failed);
	}
	t = now_us() - t0;
	report_sections(&pack, st);
	if (run.kcapi) {
		report_kcapi(&pack, st, &run);
		check_kcapi_instances();
	}
	report_line("{\"type\":\"cavs_done\",\"records\":%u,\"passed\":%u,"
		    "\"failed\":%u,\"us\":%lld,\"fail_lines_dropped\":%u}",
		    pack.nrecords, passed, failed, t, run.fail_lines_dropped);
	say("cavs: %u records, %u passed, %u failed in %.2f s", pack.nrecords,
	    passed, failed, t / 1e6);
out:
	free(run.resp);
	free(st);
	cavs_pack_free(&pack);
}

#ifdef CAVS_HOST_TEST
int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PACK\n", argv[0]);
		return 2;
	}
	check_cavs(argv[1]);
	return 0;
}
#endif
