/* SPDX-License-Identifier: GPL-2.0-only */
/* Excerpts of include/crypto/drbg.h, under the GPL alternative of its licence. */

static inline size_t drbg_max_request_bytes(struct drbg_state *drbg)
{
	/* SP800-90A requires the limit 2**19 bits, but we return bytes */
	return (1 << 16);
}
static inline size_t drbg_max_addtl(struct drbg_state *drbg)
{
	return U32_MAX - 1;
}
