/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest's ACVP runner (boot mode "acvp"): reads a pack of entries made
 * on the host by harness/judges/acvp_work.py and acvp_pack.py, runs each
 * one in the kernel and reports the kernel's answer, which the host turns
 * into ACVP responses (harness/judges/acvp_judge.py).
 *
 * The pack, version 1.  Integers are little-endian u32, no padding:
 *
 *   header     char magic[4] = "ACPK"; u32 version = 1; u32 nentries
 *   entries    nentries x { u32 kind; u32 id; u32 len; u8 payload[len]; }
 *   trailer    char magic[4] = "ACPE"; u32 nentries
 *
 * Kinds:
 *
 *   1 DRBG        payload: a request of the DRBG test interface
 *                 (/sys/kernel/debug/drbg_cavp/run, see cavs.h); the
 *                 second output is reported in hex
 *   2 DRBG probe  the same request; only how the kernel took it is
 *                 reported (write()'s result, err, step)
 *   3 HASH        u32 nlen; char driver[nlen]; u8 msg[]: the digest of
 *                 msg by the AF_ALG hash socket bound to driver
 *   4 HASH MCT    u32 nlen; char driver[nlen]; u32 version (0 standard,
 *                 1 alternate); u32 outer; u32 inner; u8 seed[]: the
 *                 SHA-3 Monte Carlo test; every outer result reported
 *   5 HASH LDT    u32 nlen; char driver[nlen]; u32 full_lo; u32 full_hi;
 *                 u8 content[]: the content repeated to full bytes,
 *                 streamed through one hash (MSG_MORE)
 */
#ifndef GUEST_ACVP_H
#define GUEST_ACVP_H

#define ACVP_PACK_PATH		"/data/acvp.pack"
#define ACVP_PACK_MAGIC		"ACPK"
#define ACVP_PACK_END		"ACPE"
#define ACVP_PACK_VERSION	1

#define ACVP_DRBG		1
#define ACVP_DRBG_PROBE		2
#define ACVP_HASH		3
#define ACVP_HASH_MCT		4
#define ACVP_HASH_LDT		5

/* A DRBG answer is reported in one result line: at most this many bytes. */
#define ACVP_ANSWER_MAX		4096U
/* The longest digest (SHA3-512) and the most MCT results in one line. */
#define ACVP_DIGEST_MAX		64U
#define ACVP_MCT_LINE_MAX	12000U
/* Bytes of an LDT message written to the hash socket at a time. */
#define ACVP_LDT_CHUNK		(1U << 20)

/* Run every entry of the pack at pack_path; see checks.h. */
void run_acvp(const char *pack_path);

#endif
