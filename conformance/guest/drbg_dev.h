/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's DRBG test interface, /sys/kernel/debug/drbg_cavp/run, as
 * the CAVS and ACVP runners use it: one request written, its reply read
 * back from offset 0 (message formats in cavs.h).
 *
 * Built with -DDRBG_DEV_FAKE (the host tests), the interface is a fake
 * that answers from the file named by $DRBG_FAKE_ANSWERS, a sequence of
 * { u32 req_len; u8 req[req_len]; u32 resp_len; u8 resp[resp_len]; } in
 * the order the runner sends its requests.  The fake refuses first what
 * the kernel's drbg_cavp_write_run() refuses before it runs anything (a
 * request over CAVS_REQ_MAX bytes: EMSGSIZE; an output length of 0 or
 * over CAVS_OUT_MAX: EINVAL), without using up an answer; every other
 * request uses up the next answer and is refused with EINVAL unless it
 * is byte for byte the one the file holds.  Without $DRBG_FAKE_ANSWERS
 * the interface does not exist.
 */
#ifndef GUEST_DRBG_DEV_H
#define GUEST_DRBG_DEV_H

#include <stddef.h>
#include <stdint.h>

/* 0 when the interface exists, else -errno (-ENOENT: it does not). */
int drbg_dev_present(void);

/*
 * Write one request and read its reply into resp, until end of file or
 * cap bytes.  The reply's length, or -errno with *stage naming the step
 * that failed ("open", "write", "lseek", "read", or "response" for a
 * reply without the response magic); *stage is NULL on success.
 */
long drbg_dev_call(const void *req, size_t len, uint8_t *resp, size_t cap,
		   const char **stage);

#endif
