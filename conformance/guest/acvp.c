// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ACVP runner of the guest (boot mode "acvp").
 *
 * Loads the pack the host wrote (format in acvp.h), checks it whole
 * before running anything, then runs each entry in the kernel: a DRBG
 * request through the test interface /sys/kernel/debug/drbg_cavp/run (as
 * the CAVS runner does), a hash through an AF_ALG hash socket bound to
 * the driver the entry names (the kernel's own sha3-256-generic).  It
 * compares nothing: it reports what the kernel answered, one line per
 * entry on the results channel,
 *
 *   {"type":"acvp","i":ID,"err":E,"step":S,"out":HEX}      DRBG
 *   {"type":"acvp","i":ID,"wrote":W,"err":E,"step":S}     DRBG probe
 *   {"type":"acvp","i":ID,"md":HEX,"us":T}                 HASH, LDT
 *   {"type":"acvp","i":ID,"mds":HEX,"us":T}                MCT
 *   {"type":"acvp","i":ID,"stage":WHAT,"err":-ERRNO}       a call failed
 *
 * and with conform.kcapi=1 on the command line each DRBG entry is run a
 * second time through libkcapi and AF_ALG (kcapi_drbg.h):
 *
 *   {"type":"acvp_kcapi","i":ID,"out":HEX}                 its answer
 *   {"type":"acvp_kcapi","i":ID,"beyond":REASON}           not carried
 *   {"type":"acvp_kcapi","i":ID,"stage":WHAT,"err":-ERRNO} a call failed
 *
 * then {"type":"acvp_done",...} with the time spent per kind, and the
 * check acvp.pack only when the pack cannot be used.  The host
 * (harness/judges/acvp_judge.py) compares the answers with its model and
 * with the expected results.
 *
 * Built with -DACVP_HOST_TEST the runner gets a main() and the hash is
 * OpenSSL's (link with -lcrypto); with drbg_dev.c built with
 * -DDRBG_DEV_FAKE the DRBG interface is a fake: the host tests run the
 * runner on a pack from acvp_pack.py.
 */
#include "acvp.h"
#include "cavs.h"
#include "checks.h"
#include "drbg_dev.h"
#include "kcapi_drbg.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct acvp_entry {
	uint32_t kind;
	uint32_t id;
	uint32_t len;
	const uint8_t *p;
};

struct acvp_run {
	uint8_t *resp;		/* a DRBG reply: header and both outputs */
	size_t resp_size;
	char *line;		/* hex of an answer */
	long long us[6];	/* time spent per kind */
	int kcapi;		/* conform.kcapi=1: DRBG entries through libkcapi too */
	long long kcapi_us;
};

/* Check the whole pack; the number of entries, or -1 with why filled in. */
static long check_pack(const uint8_t *buf, size_t len, char *why, size_t why_len)
{
	uint32_t n, i;
	size_t off = 12;

	if (len < 20 || memcmp(buf, ACVP_PACK_MAGIC, 4) ||
	    get_le32(buf + 4) != ACVP_PACK_VERSION) {
		snprintf(why, why_len, "not an ACVP pack of version %d (%zu bytes)",
			 ACVP_PACK_VERSION, len);
		return -1;
	}
	n = get_le32(buf + 8);
	for (i = 0; i < n; i++) {
		if (off + 12 > len || get_le32(buf + off + 8) > len - off - 12) {
			snprintf(why, why_len, "pack cut off at entry %u of %u", i, n);
			return -1;
		}
		off += 12 + (size_t)get_le32(buf + off + 8);
	}
	if (off + 8 != len || memcmp(buf + off, ACVP_PACK_END, 4) ||
	    get_le32(buf + off + 4) != n) {
		snprintf(why, why_len, "pack trailer missing or wrong");
		return -1;
	}
	return n;
}

static void report_error(const struct acvp_entry *e, const char *stage, int err)
{
	report_line("{\"type\":\"acvp\",\"i\":%u,\"stage\":\"%s\",\"err\":%d}",
		    e->id, stage, err);
}

static void run_drbg(const struct acvp_entry *e, struct acvp_run *run)
{
	uint32_t out_len = e->len >= CAVS_REQ_HDR_LEN ? get_le32(e->p + 12) : 0;
	const char *stage;
	long got = drbg_dev_call(e->p, e->len, run->resp, run->resp_size, &stage);
	int err;

	if (e->kind == ACVP_DRBG_PROBE) {
		if (stage)
			report_error(e, stage, (int)got);
		else
			report_line("{\"type\":\"acvp\",\"i\":%u,\"wrote\":%u,\"err\":%d,"
				    "\"step\":%u}", e->id, e->len,
				    (int)get_le32(run->resp + 4), get_le32(run->resp + 8));
		return;
	}
	if (stage) {
		report_error(e, stage, (int)got);
		return;
	}
	err = (int)get_le32(run->resp + 4);
	if (err) {
		report_line("{\"type\":\"acvp\",\"i\":%u,\"err\":%d,\"step\":%u}", e->id,
			    err, get_le32(run->resp + 8));
		return;
	}
	if (out_len > ACVP_ANSWER_MAX ||
	    (size_t)got != CAVS_RESP_HDR_LEN + 2 * (size_t)out_len) {
		report_error(e, "response", -EMSGSIZE);
		return;
	}
	hex_encode(run->line, run->resp + CAVS_RESP_HDR_LEN + out_len, out_len);
	report_line("{\"type\":\"acvp\",\"i\":%u,\"err\":0,\"step\":0,\"out\":\"%s\"}",
		    e->id, run->line);
}

/*
 * A DRBG entry again through libkcapi (kcapi_drbg.h): its second output,
 * the reason the AF_ALG CAVP interface cannot carry it, or the call that
 * failed.  The host compares the output with the debugfs answer.
 */
static void run_drbg_kcapi(const struct acvp_entry *e, struct acvp_run *run)
{
	uint8_t out2[KCAPI_RNG_MAXSIZE];
	enum kcapi_beyond why;
	const char *stage;
	int err;

	if (!kcapi_drbg_request_ok(e->p, e->len)) {
		report_line("{\"type\":\"acvp_kcapi\",\"i\":%u,"
			    "\"stage\":\"request\",\"err\":%d}", e->id, -EINVAL);
		return;
	}
	why = kcapi_drbg_beyond(e->p);
	if (why != KCAPI_CARRIED) {
		report_line("{\"type\":\"acvp_kcapi\",\"i\":%u,\"beyond\":\"%s\"}",
			    e->id, kcapi_beyond_names[why]);
		return;
	}
	err = kcapi_drbg_answer(e->p, out2, &stage);
	if (err) {
		report_line("{\"type\":\"acvp_kcapi\",\"i\":%u,\"stage\":\"%s\","
			    "\"err\":%d}", e->id, stage, err);
		return;
	}
	hex_encode(run->line, out2, get_le32(e->p + 12));
	report_line("{\"type\":\"acvp_kcapi\",\"i\":%u,\"out\":\"%s\"}",
		    e->id, run->line);
}

/* ---- hashes ------------------------------------------------------------ */

#ifndef ACVP_HOST_TEST

#include <linux/if_alg.h>
#include <sys/socket.h>

struct hasher {
	int tfm;
	int op;
};

static int hash_open(struct hasher *h, const char *driver)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };

	h->op = -1;
	h->tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (h->tfm < 0)
		return -errno;
	strcpy((char *)sa.salg_type, "hash");
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", driver);
	if (bind(h->tfm, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	h->op = accept(h->tfm, NULL, 0);
	return h->op < 0 ? -errno : 0;
}

/* Feed n bytes; more: the message goes on (MSG_MORE). */
static int hash_feed(struct hasher *h, const uint8_t *p, size_t n, int more)
{
	ssize_t k;

	do {
		k = send(h->op, p, n, more ? MSG_MORE : 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if ((size_t)k != n && !more)
			return -EIO;	/* the hash was ended after k bytes */
		p += k;
		n -= (size_t)k;
	} while (n);
	return 0;
}

/* End the message (if fed with more) and read its digest; its length. */
static int hash_final(struct hasher *h, uint8_t *md, int fed_more)
{
	ssize_t k;

	if (fed_more && send(h->op, "", 0, 0) < 0)
		return -errno;
	k = read(h->op, md, ACVP_DIGEST_MAX);
	return k < 0 ? -errno : (int)k;
}

static void hash_close(struct hasher *h)
{
	if (h->op >= 0)
		close(h->op);
	if (h->tfm >= 0)
		close(h->tfm);
}

#else /* ACVP_HOST_TEST: OpenSSL's SHA3-256 stands in for the kernel's */

#include <openssl/evp.h>

/*
 * As algif_hash does: a feed without "more" ends the message and keeps
 * its digest for the next read; a final after fed-more ends the message
 * fed so far (or, when none is open, hashes the empty one).
 */
struct hasher {
	EVP_MD_CTX *ctx;
	int started;
	uint8_t result[ACVP_DIGEST_MAX];
	int rlen;
};

static int hash_open(struct hasher *h, const char *driver)
{
	h->started = 0;
	h->rlen = -EINVAL;
	h->ctx = NULL;
	if (strcmp(driver, "sha3-256-generic"))
		return -ENOENT;
	h->ctx = EVP_MD_CTX_new();
	return h->ctx ? 0 : -ENOMEM;
}

static int hash_end(struct hasher *h)
{
	unsigned int n = 0;

	if (!h->started && !EVP_DigestInit_ex(h->ctx, EVP_sha3_256(), NULL))
		return -EINVAL;
	h->started = 0;
	h->rlen = EVP_DigestFinal_ex(h->ctx, h->result, &n) ? (int)n : -EINVAL;
	return h->rlen < 0 ? h->rlen : 0;
}

static int hash_feed(struct hasher *h, const uint8_t *p, size_t n, int more)
{
	if (!h->started && !EVP_DigestInit_ex(h->ctx, EVP_sha3_256(), NULL))
		return -EINVAL;
	h->started = 1;
	if (!EVP_DigestUpdate(h->ctx, p, n))
		return -EINVAL;
	return more ? 0 : hash_end(h);
}

static int hash_final(struct hasher *h, uint8_t *md, int fed_more)
{
	int n = fed_more ? hash_end(h) : 0;

	if (n)
		return n;
	n = h->rlen;
	if (n < 0)
		return n;
	memcpy(md, h->result, (size_t)n);
	h->rlen = -EINVAL;	/* a read takes the digest, as the kernel's does */
	return n;
}

static void hash_close(struct hasher *h)
{
	EVP_MD_CTX_free(h->ctx);
}

#endif /* ACVP_HOST_TEST */

/* The digest of one message; its length or -errno. */
static int hash_once(struct hasher *h, const uint8_t *msg, size_t n, uint8_t *md)
{
	int err = hash_feed(h, msg, n, 0);

	return err ? err : hash_final(h, md, 0);
}

/* The driver name of a hash entry and the rest of its payload. */
static int hash_payload(const struct acvp_entry *e, char *driver, size_t dlen,
			const uint8_t **rest, size_t *rest_len)
{
	uint32_t n = e->len >= 4 ? get_le32(e->p) : 0;

	if (!n || n >= dlen || n > e->len - 4)
		return -EINVAL;
	memcpy(driver, e->p + 4, n);
	driver[n] = '\0';
	*rest = e->p + 4 + n;
	*rest_len = e->len - 4 - n;
	return 0;
}

static void report_digest(const struct acvp_entry *e, struct acvp_run *run,
			  const char *key, long long t0)
{
	report_line("{\"type\":\"acvp\",\"i\":%u,\"%s\":\"%s\",\"us\":%lld}", e->id,
		    key, run->line, now_us() - t0);
}

static void run_hash(const struct acvp_entry *e, struct acvp_run *run)
{
	uint8_t md[ACVP_DIGEST_MAX];
	long long t0 = now_us();
	const uint8_t *msg;
	struct hasher h;
	char driver[128];
	size_t n;
	int k;

	if (hash_payload(e, driver, sizeof(driver), &msg, &n)) {
		report_error(e, "payload", -EINVAL);
		return;
	}
	k = hash_open(&h, driver);
	if (!k)
		k = hash_once(&h, msg, n, md);
	hash_close(&h);
	if (k < 0) {
		report_error(e, "hash", k);
		return;
	}
	hex_encode(run->line, md, (size_t)k);
	report_digest(e, run, "md", t0);
}

/*
 * The SHA-3 Monte Carlo test (ACVP's SHA-3 specification): each inner
 * step hashes the previous digest, the seed first; "alternate" (version
 * 1) cuts or zero-pads every message to the seed's length.  Writes the
 * outer results' hex into hex; 0 or -errno.
 */
static int mct(struct hasher *h, uint32_t version, uint32_t outer, uint32_t inner,
	       const uint8_t *seed, size_t n, char *hex)
{
	uint8_t md[ACVP_DIGEST_MAX], *msg = malloc(n + ACVP_DIGEST_MAX);
	size_t len = n;
	uint32_t i, j;
	int k = -EINVAL;

	if (!msg)
		return -ENOMEM;
	memcpy(msg, seed, n);
	for (j = 0; j < outer; j++) {
		for (i = 0; i < inner; i++) {
			if (version == 1 && len != n) {
				if (len < n)
					memset(msg + len, 0, n - len);
				len = n;
			}
			k = hash_once(h, msg, len, md);
			if (k < 0)
				goto out;
			memcpy(msg, md, (size_t)k);
			len = (size_t)k;
		}
		if (2 * (size_t)(j + 1) * (size_t)k > ACVP_MCT_LINE_MAX) {
			k = -EMSGSIZE;
			goto out;
		}
		hex_encode(hex + 2 * (size_t)j * (size_t)k, md, (size_t)k);
	}
	k = 0;
out:
	free(msg);
	return k;
}

static void run_mct(const struct acvp_entry *e, struct acvp_run *run)
{
	long long t0 = now_us();
	const uint8_t *rest;
	struct hasher h;
	char driver[128];
	size_t n;
	int err;

	if (hash_payload(e, driver, sizeof(driver), &rest, &n) || n < 13) {
		report_error(e, "payload", -EINVAL);
		return;
	}
	err = hash_open(&h, driver);
	if (!err)
		err = mct(&h, get_le32(rest), get_le32(rest + 4), get_le32(rest + 8),
			  rest + 12, n - 12, run->line);
	hash_close(&h);
	if (err) {
		report_error(e, "hash", err);
		return;
	}
	report_digest(e, run, "mds", t0);
}

/* The content repeated to full bytes, through one hash. */
static int ldt(struct hasher *h, const uint8_t *content, size_t clen,
	       uint64_t full, uint8_t *md)
{
	size_t bsize = ACVP_LDT_CHUNK / clen * clen, i;
	uint64_t done = 0;
	uint8_t *block;
	int k = 0;

	if (!bsize)
		bsize = clen;
	block = malloc(bsize);
	if (!block)
		return -ENOMEM;
	for (i = 0; i < bsize; i += clen)
		memcpy(block + i, content, clen);
	while (done < full && !k) {
		size_t n = full - done < bsize ? (size_t)(full - done) : bsize;

		k = hash_feed(h, block, n, 1);
		done += n;
	}
	free(block);
	return k ? k : hash_final(h, md, 1);
}

static void run_ldt(const struct acvp_entry *e, struct acvp_run *run)
{
	uint8_t md[ACVP_DIGEST_MAX];
	long long t0 = now_us();
	const uint8_t *rest;
	struct hasher h;
	char driver[128];
	uint64_t full;
	size_t n;
	int k;

	if (hash_payload(e, driver, sizeof(driver), &rest, &n) || n < 9) {
		report_error(e, "payload", -EINVAL);
		return;
	}
	full = (uint64_t)get_le32(rest) | (uint64_t)get_le32(rest + 4) << 32;
	say("acvp: a large message of %llu bytes through %s",
	    (unsigned long long)full, driver);
	k = hash_open(&h, driver);
	if (!k)
		k = ldt(&h, rest + 8, n - 8, full, md);
	hash_close(&h);
	if (k < 0) {
		report_error(e, "hash", k);
		return;
	}
	hex_encode(run->line, md, (size_t)k);
	report_digest(e, run, "md", t0);
}

static void run_entry(const struct acvp_entry *e, struct acvp_run *run)
{
	switch (e->kind) {
	case ACVP_DRBG:
		run_drbg(e, run);
		if (run->kcapi) {
			long long t = now_us();

			run_drbg_kcapi(e, run);
			run->kcapi_us += now_us() - t;
		}
		break;
	case ACVP_DRBG_PROBE:
		run_drbg(e, run);
		break;
	case ACVP_HASH:
		run_hash(e, run);
		break;
	case ACVP_HASH_MCT:
		run_mct(e, run);
		break;
	case ACVP_HASH_LDT:
		run_ldt(e, run);
		break;
	default:
		report_error(e, "kind", -EINVAL);
	}
}

void run_acvp(const char *pack_path)
{
	struct acvp_run run = { 0 };
	long long t0 = now_us(), t;
	struct acvp_entry e;
	uint8_t *buf = NULL;
	size_t len = 0, off = 12;
	char why[256], flag[8];
	long n, i;
	int err;

	run.kcapi = cmdline_value("conform.kcapi", flag, sizeof(flag)) &&
		    !strcmp(flag, "1");
	err = read_whole(pack_path, &buf, &len);
	if (err) {
		snprintf(why, sizeof(why), "cannot read %s: %s", pack_path, strerror(-err));
		report_check("acvp.pack", "fail", why, NULL);
		return;
	}
	n = check_pack(buf, len, why, sizeof(why));
	run.resp_size = CAVS_RESP_HDR_LEN + 2 * (size_t)CAVS_OUT_MAX + 1;
	run.resp = malloc(run.resp_size);
	run.line = malloc(2 * ACVP_ANSWER_MAX + ACVP_MCT_LINE_MAX + 1);
	if (n < 0 || !run.resp || !run.line) {
		report_check("acvp.pack", "fail", n < 0 ? why : "out of memory", NULL);
		goto out;
	}
	say("acvp: %ld entries%s", n,
	    run.kcapi ? ", each DRBG entry also through libkcapi" : "");
	for (i = 0; i < n; i++) {
		e.kind = get_le32(buf + off);
		e.id = get_le32(buf + off + 4);
		e.len = get_le32(buf + off + 8);
		e.p = buf + off + 12;
		off += 12 + (size_t)e.len;
		t = now_us();
		run_entry(&e, &run);
		run.us[e.kind < 6 ? e.kind : 0] += now_us() - t;
		if ((i + 1) % 500 == 0)
			say("acvp: %ld of %ld entries", i + 1, n);
	}
	report_line("{\"type\":\"acvp_done\",\"entries\":%ld,\"us\":%lld,\"drbg_us\":%lld,"
		    "\"probe_us\":%lld,\"hash_us\":%lld,\"mct_us\":%lld,\"ldt_us\":%lld,"
		    "\"kcapi\":%s,\"kcapi_us\":%lld}",
		    n, now_us() - t0, run.us[1], run.us[2], run.us[3], run.us[4],
		    run.us[5], run.kcapi ? "true" : "false", run.kcapi_us);
	say("acvp: %ld entries in %.1f s", n, (now_us() - t0) / 1e6);
out:
	free(run.line);
	free(run.resp);
	free(buf);
}

#ifdef ACVP_HOST_TEST
int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PACK\n", argv[0]);
		return 2;
	}
	run_acvp(argv[1]);
	return 0;
}
#endif
