/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest's CAVS runner: reads a pack of requests made on the host by
 * harness/judges/cavs_pack.py, hands each to the kernel's test interface
 * and compares the second output with NIST's ReturnedBits.
 *
 * The pack, version 1.  Integers are little-endian u32, no padding:
 *
 *   header           char magic[4] = "DCPK"; u32 version = 1;
 *                    u32 nfiles; u32 nsections; u32 nrecords;
 *                    u32 records_offset (byte offset of the first record)
 *   file table       nfiles x { u32 len; char name[len]; }  (no NUL)
 *   section table    nsections x { u32 file; u32 len; char name[len]; }
 *                    name is "<kind>.<slug>", e.g. "pr_false.hmac-sha256"
 *   records          nrecords x { u32 file; u32 line; u32 section;
 *                    u32 req_len; u32 exp_len; u8 request[req_len];
 *                    u8 expected[exp_len]; }
 *                    line is the line of the record's COUNT in its file;
 *                    request is the message written to the kernel as is;
 *                    expected is ReturnedBits, compared with out2
 *   trailer          char magic[4] = "DCPE"; u32 nrecords
 *
 * The kernel's test interface, /sys/kernel/debug/drbg_cavp/run: write()
 * takes one request and runs it, read() from offset 0 returns the
 * response of the last request of this open file.
 *
 *   request          char magic[4] = "DCV1"; u32 total_len; u32 flags
 *                    (bit0 RESEED, bit1 PR); u32 out_len; char driver[64];
 *                    u32 len[9]; then the nine strings: EntropyInput,
 *                    Nonce, PersonalizationString, EntropyInputReseed,
 *                    AdditionalInputReseed, AdditionalInput1,
 *                    AdditionalInput2, EntropyInputPR1, EntropyInputPR2
 *   response         char magic[4] = "DCR1"; s32 err; u32 step;
 *                    u32 out_len; then out1 and out2 when err == 0
 */
#ifndef GUEST_CAVS_H
#define GUEST_CAVS_H

#include <stddef.h>
#include <stdint.h>

#define CAVS_PACK_PATH		"/data/cavs.pack"
#define CAVS_DEV		"/sys/kernel/debug/drbg_cavp/run"

#define CAVS_PACK_MAGIC		"DCPK"
#define CAVS_PACK_END		"DCPE"
#define CAVS_PACK_VERSION	1
#define CAVS_PACK_HDR_LEN	24
#define CAVS_REC_HDR_LEN	20

#define CAVS_REQ_MAGIC		"DCV1"
#define CAVS_REQ_HDR_LEN	116
#define CAVS_REQ_MAX		(1U << 20)
#define CAVS_OUT_MAX		262144U
#define CAVS_RESP_MAGIC		"DCR1"
#define CAVS_RESP_HDR_LEN	16

/* Bytes of expected and got shown for a failing record. */
#define CAVS_WINDOW		256U
/* At most this many failing records are itemised on the results channel. */
#define CAVS_MAX_FAIL_LINES	256

struct cavs_section {
	uint32_t file;
	const char *name;
	uint32_t name_len;
};

struct cavs_pack {
	uint8_t *buf;
	size_t len;
	uint32_t nfiles;
	uint32_t nsections;
	uint32_t nrecords;
	const char **file_names;
	uint32_t *file_name_lens;
	struct cavs_section *sections;
	size_t records_offset;
};

struct cavs_record {
	uint32_t file;
	uint32_t line;
	uint32_t section;
	const uint8_t *req;
	uint32_t req_len;
	const uint8_t *exp;
	uint32_t exp_len;
};

/*
 * Read and check a whole pack (every record's bounds, the trailer).
 * Returns 0, or -1 with a message in why.
 */
int cavs_pack_load(struct cavs_pack *pack, const char *path, char *why,
		   size_t why_len);
void cavs_pack_free(struct cavs_pack *pack);

/* The record at *off (start at pack->records_offset); advances *off. */
void cavs_pack_record(const struct cavs_pack *pack, size_t *off,
		      struct cavs_record *rec);

/* Run every record of the pack at pack_path; see checks.h. */
void check_cavs(const char *pack_path);

#endif
