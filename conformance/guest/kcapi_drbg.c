// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DRBGs and the Jitter RNG through libkcapi; see kcapi_drbg.h.
 *
 * Built with -DKCAPI_NONE (the host tests' builds of cavs.c and acvp.c,
 * and a 32-bit guest, for which Debian has no static libkcapi on amd64)
 * every call says so instead: kcapi_linked() is 0, kcapi_drbg_answer()
 * fails with -ENOSYS at stage "libkcapi not linked", and
 * check_kcapi_instances() reports its checks as skipped with the reason.
 */
#include "cavs.h"
#include "checks.h"
#include "kcapi_drbg.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef KCAPI_NONE
#include <kcapi.h>
#endif

const char *const kcapi_beyond_names[KCAPI_BEYOND_N] = {
	[KCAPI_CARRIED] = "carried",
	[KCAPI_BEYOND_RESEED] = "reseed",
	[KCAPI_BEYOND_PR] = "prediction_resistance",
	[KCAPI_BEYOND_OUT_LEN] = "returned_bits_over_128_bytes",
	[KCAPI_BEYOND_ENTROPY_LEN] = "entropy_and_nonce_over_128_bytes",
	[KCAPI_BEYOND_ADDTL_LEN] = "additional_input_over_128_bytes",
};

/* The fields of a request of the DRBG test interface (layout in cavs.h). */
enum { F_ENTROPY, F_NONCE, F_PERS, F_ENTROPY_RESEED, F_ADDTL_RESEED,
       F_ADDTL1, F_ADDTL2, F_ENTROPY_PR1, F_ENTROPY_PR2, F_N };

#define REQ_FLAG_RESEED	1U
#define REQ_FLAG_PR	2U

struct request {
	uint32_t flags, out_len;
	const char *driver;
	const uint8_t *field[F_N];
	uint32_t len[F_N];
};

static void split(const uint8_t *req, struct request *r)
{
	size_t off = CAVS_REQ_HDR_LEN;
	int i;

	r->flags = get_le32(req + 8);
	r->out_len = get_le32(req + 12);
	r->driver = (const char *)req + 16;
	for (i = 0; i < F_N; i++) {
		r->len[i] = get_le32(req + 80 + 4 * i);
		r->field[i] = req + off;
		off += r->len[i];
	}
}

int kcapi_drbg_request_ok(const uint8_t *req, uint32_t len)
{
	uint64_t sum = CAVS_REQ_HDR_LEN;
	int i;

	if (len < CAVS_REQ_HDR_LEN || memcmp(req, CAVS_REQ_MAGIC, 4) ||
	    get_le32(req + 4) != len || !memchr(req + 16, 0, 64))
		return 0;
	for (i = 0; i < F_N; i++)
		sum += get_le32(req + 80 + 4 * i);
	return sum == len;
}

enum kcapi_beyond kcapi_drbg_beyond(const uint8_t *req)
{
	struct request r;

	split(req, &r);
	if (r.flags & REQ_FLAG_RESEED)
		return KCAPI_BEYOND_RESEED;
	if (r.flags & REQ_FLAG_PR)
		return KCAPI_BEYOND_PR;
	if (r.out_len > KCAPI_RNG_MAXSIZE)
		return KCAPI_BEYOND_OUT_LEN;
	if (r.len[F_ENTROPY] + r.len[F_NONCE] > KCAPI_RNG_MAXSIZE)
		return KCAPI_BEYOND_ENTROPY_LEN;
	if (r.len[F_ADDTL1] > KCAPI_RNG_MAXSIZE ||
	    r.len[F_ADDTL2] > KCAPI_RNG_MAXSIZE)
		return KCAPI_BEYOND_ADDTL_LEN;
	return KCAPI_CARRIED;
}

#ifndef KCAPI_NONE

int kcapi_linked(void)
{
	return 1;
}

/* Two generates of out_len bytes, each after its additional input. */
static int generate_twice(struct kcapi_handle *h, const struct request *r,
			  uint8_t *out2, const char **stage)
{
	static const char *const addtl_stage[2] = { "setaddtl 1", "setaddtl 2" };
	static const char *const gen_stage[2] = { "generate 1", "generate 2" };
	uint8_t out1[KCAPI_RNG_MAXSIZE];
	ssize_t got;
	int i, ret;

	for (i = 0; i < 2; i++) {
		if (r->len[F_ADDTL1 + i]) {
			*stage = addtl_stage[i];
			ret = kcapi_rng_setaddtl(h, (uint8_t *)r->field[F_ADDTL1 + i],
						 r->len[F_ADDTL1 + i]);
			if (ret < 0)
				return ret;
		}
		*stage = gen_stage[i];
		got = kcapi_rng_generate(h, i ? out2 : out1, r->out_len);
		if (got < 0)
			return (int)got;
		if ((size_t)got != r->out_len)
			return -EMSGSIZE;
	}
	return 0;
}

int kcapi_drbg_answer(const uint8_t *req, uint8_t *out2, const char **stage)
{
	uint8_t entropy[2 * KCAPI_RNG_MAXSIZE];
	struct kcapi_handle *h;
	struct request r;
	int ret;

	split(req, &r);
	if (kcapi_drbg_beyond(req) != KCAPI_CARRIED) {
		*stage = "not carried";
		return -EINVAL;
	}
	memcpy(entropy, r.field[F_ENTROPY], r.len[F_ENTROPY]);
	memcpy(entropy + r.len[F_ENTROPY], r.field[F_NONCE], r.len[F_NONCE]);
	*stage = "init";
	ret = kcapi_rng_init(&h, r.driver, 0);
	if (ret)
		return ret;
	/* The test entropy must come before the seed, which instantiates. */
	*stage = "setentropy";
	ret = kcapi_rng_setentropy(h, entropy, r.len[F_ENTROPY] + r.len[F_NONCE]);
	if (!ret) {
		*stage = "seed";
		ret = kcapi_rng_seed(h, (uint8_t *)r.field[F_PERS], r.len[F_PERS]);
	}
	if (!ret)
		ret = generate_twice(h, &r, out2, stage);
	kcapi_rng_destroy(h);
	return ret < 0 ? ret : 0;
}

#define INSTANCE_BYTES	32

/*
 * Instantiate one RNG through libkcapi (the seed is the DRBG's
 * personalisation string; the Jitter RNG ignores it) and generate twice:
 * both reads full, different, and not all zero.  NULL, or what failed.
 */
static const char *one_instance(const char *driver, char *why, size_t n)
{
	uint8_t pers[16], a[INSTANCE_BYTES], b[INSTANCE_BYTES];
	static const uint8_t zero[INSTANCE_BYTES];
	struct kcapi_handle *h;
	ssize_t ga, gb = 0;
	int ret;

	ret = kcapi_rng_init(&h, driver, 0);
	if (ret) {
		snprintf(why, n, "kcapi_rng_init: %s", strerror(-ret));
		return why;
	}
	memset(pers, 0x5a, sizeof(pers));
	ret = kcapi_rng_seed(h, pers, sizeof(pers));
	if (ret) {
		snprintf(why, n, "kcapi_rng_seed: %s", strerror(-ret));
		kcapi_rng_destroy(h);
		return why;
	}
	ga = kcapi_rng_generate(h, a, sizeof(a));
	if (ga == (ssize_t)sizeof(a))
		gb = kcapi_rng_generate(h, b, sizeof(b));
	kcapi_rng_destroy(h);
	if (ga != (ssize_t)sizeof(a) || gb != (ssize_t)sizeof(b))
		snprintf(why, n, "kcapi_rng_generate gave %zd and %zd of %d bytes",
			 ga, gb, INSTANCE_BYTES);
	else if (!memcmp(a, b, sizeof(a)))
		snprintf(why, n, "two reads gave the same %d bytes", INSTANCE_BYTES);
	else if (!memcmp(a, zero, sizeof(a)) || !memcmp(b, zero, sizeof(b)))
		snprintf(why, n, "a read gave %d zero bytes", INSTANCE_BYTES);
	else
		return NULL;
	return why;
}

void check_kcapi_instances(void)
{
	char id[96], why[160], ver[64];
	const char *bad;
	int i;

	kcapi_versionstring(ver, sizeof(ver));
	say("kcapi: %s, 22 DRBG instances and jitterentropy_rng", ver);
	for (i = 0; i <= 22; i++) {
		const char *driver = i < 22 ? drbg_drivers[i] : "jitterentropy_rng";

		snprintf(id, sizeof(id), "guest.kcapi.%s", driver);
		bad = one_instance(driver, why, sizeof(why));
		report_check(id, bad ? "fail" : "pass", bad,
			     "\"driver\":\"%s\",\"library\":\"%s\"", driver, ver);
	}
}

#else /* KCAPI_NONE */

int kcapi_linked(void)
{
	return 0;
}

int kcapi_drbg_answer(const uint8_t *req, uint8_t *out2, const char **stage)
{
	(void)req;
	(void)out2;
	*stage = "libkcapi not linked";
	return -ENOSYS;
}

void check_kcapi_instances(void)
{
	char id[96];
	int i;

	for (i = 0; i <= 22; i++) {
		snprintf(id, sizeof(id), "guest.kcapi.%s",
			 i < 22 ? drbg_drivers[i] : "jitterentropy_rng");
		report_check(id, "skip", KCAPI_NONE_REASON, NULL);
	}
}

#endif /* KCAPI_NONE */
