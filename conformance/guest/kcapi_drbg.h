/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A second client of the kernel's DRBGs: libkcapi (Debian libkcapi-dev,
 * linked statically), the AF_ALG library that laboratories' test tools
 * (acvpparser's kernel backend among them) are built on.  It reaches the
 * DRBG through AF_ALG and the stock CAVP extension of algif_rng.c
 * (CONFIG_CRYPTO_USER_API_RNG_CAVP), not through the series' own debugfs
 * test interface, so an answer it gives equal to the debugfs one shows
 * that both interfaces drive the same code.
 *
 * What that extension can carry is narrower than a CAVS or ACVP record:
 *
 *   - ALG_SET_DRBG_ENTROPY is accepted once per socket (rng_setentropy()
 *     refuses a second call), so a record that reseeds with new entropy
 *     or gives each generate its own entropy (prediction resistance)
 *     cannot be run;
 *   - the entropy (with the nonce appended), the additional input and one
 *     read are each at most MAXSIZE = 128 bytes; a longer read is several
 *     generate calls, which is not the record's one generate.
 *
 * Such a record is counted under the reason, never dropped.
 */
#ifndef GUEST_KCAPI_DRBG_H
#define GUEST_KCAPI_DRBG_H

#include <stdint.h>

/* algif_rng.c's MAXSIZE: one read, the entropy, one additional input. */
#define KCAPI_RNG_MAXSIZE	128U

/* Why a record cannot go through the AF_ALG CAVP interface. */
enum kcapi_beyond {
	KCAPI_CARRIED = 0,
	KCAPI_BEYOND_RESEED,		/* a second entropy for the reseed */
	KCAPI_BEYOND_PR,		/* an entropy per generate */
	KCAPI_BEYOND_OUT_LEN,		/* ReturnedBits over 128 bytes */
	KCAPI_BEYOND_ENTROPY_LEN,	/* entropy and nonce over 128 bytes */
	KCAPI_BEYOND_ADDTL_LEN,		/* an additional input over 128 bytes */
	KCAPI_BEYOND_N
};

/* The reasons' names as the results channel gives them, by enum value. */
extern const char *const kcapi_beyond_names[KCAPI_BEYOND_N];

/* Whether req (len bytes) is a whole request of the DRBG test interface. */
int kcapi_drbg_request_ok(const uint8_t *req, uint32_t len);

/*
 * Whether the request of the DRBG test interface (cavs.h; checked by the
 * caller) can be run through libkcapi, or why not.
 */
enum kcapi_beyond kcapi_drbg_beyond(const uint8_t *req);

/*
 * Run a request the interface can carry through libkcapi: instantiate
 * with EntropyInput || Nonce as the test entropy and the personalisation
 * string as the key, then two generates of out_len bytes, each after its
 * additional input.  Returns 0 with the second output in out2, or a
 * negative errno with *stage naming the call that failed.
 */
int kcapi_drbg_answer(const uint8_t *req, uint8_t *out2, const char **stage);

/* 1 when this /init is linked with libkcapi, 0 when built -DKCAPI_NONE. */
int kcapi_linked(void);

/* Why this /init has no libkcapi (for a skipped check). */
#define KCAPI_NONE_REASON "this /init was built without libkcapi (a 32-bit " \
			  "guest: Debian has no static libkcapi for it)"

/*
 * Boot mode "cavs", conform.kcapi=1: every DRBG instance and
 * jitterentropy_rng through libkcapi's RNG calls, one check each.
 */
void check_kcapi_instances(void);

#endif
