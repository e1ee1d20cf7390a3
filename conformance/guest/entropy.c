// SPDX-License-Identifier: GPL-2.0-only
/*
 * Boot mode "entropy" (make entropy, harness/stages/entropy.py): the raw
 * noise of the kernel's own Jitter RNG through its test interface,
 * jitterentropy_testing/raw_noise in debugfs (chapter "The CPU Jitter RNG:
 * entropy evidence").  Writing n to the file restarts the noise source
 * (start-up test, new instance) and records its first n raw samples;
 * reading it returns them, 8 bytes each, little-endian.
 *
 * First conform.entropy_samples (default 1000000) consecutive samples, then
 * conform.entropy_restarts (1000) restarts of conform.entropy_len (1000)
 * samples each (conform.entropy_samples=0: the restarts only, as a boot of
 * the restart-by-reboot collection makes one).  The samples go unchanged,
 * as binary, to the data channel: QEMU's debug console at I/O port 0xe9,
 * which the host adds for this mode (a serial port is paced at its line
 * rate, 11 KB/s: 16 MB would take half an hour), or, under User-Mode Linux
 * (conform.hostfs=DIR), the file data.bin in the host's directory DIR
 * through hostfs.  conform.entropy_shuffle=0 records with the loop
 * shuffle off (loop_shuffle set to N first; raw_noise_info must confirm
 * it for every recording).  Two more parts can follow, each only when
 * asked for: conform.entropy_blocks=N items of output blocks (record 1:
 * the conditioning's output, 8 bytes an item), and
 * conform.entropy_strides=R rows of conform.entropy_stride_len
 * samples, the even rows recorded with
 * record_stride 1 and the odd ones with conform.entropy_stride (every k-th
 * raw sample only: no recorded interval holds the recording's store).  The
 * results channel gets one "entropy-part" line per part with its size,
 * its FNV-1a hash, the kernel's account of it and the time it took, and
 * the check guest.entropy.raw.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define RAW_PATH	"/sys/kernel/debug/jitterentropy_testing/raw_noise"
#define INFO_PATH	"/sys/kernel/debug/jitterentropy_testing/raw_noise_info"
#define SHUFFLE_PATH	"/sys/kernel/debug/jitterentropy_testing/loop_shuffle"
#define RECORD_PATH	"/sys/kernel/debug/jitterentropy_testing/record"
#define STRIDE_PATH	"/sys/kernel/debug/jitterentropy_testing/record_stride"
#define DATA_PORT	0xe9	/* QEMU's isa-debugcon */
#define HOSTFS_DIR	"/host"	/* User-Mode Linux: the host's directory */

struct part {
	const char *name;
	int shuffle;			/* what raw_noise_info must say */
	unsigned int record;		/* 0 raw samples, 1 output blocks */
	unsigned int stride;		/* the odd rows' record_stride (0: 1) */
	unsigned long rows, len;	/* restarts and samples per restart */
	uint64_t fnv;
	unsigned long blocks, intermittent;
	long long us;
};

/*
 * The data channel: a file descriptor of data.bin on hostfs under
 * User-Mode Linux, or -2 for the I/O port under QEMU; -1 when neither
 * can be had.
 */
static int open_data(const char **why)
{
	char dir[256];
	int fd;

	if (!cmdline_value("conform.hostfs", dir, sizeof(dir))) {
		*why = "no access to the data channel (ioperm of port 0xe9 failed)";
		return ioperm(DATA_PORT, 1, 1) ? -1 : -2;
	}
	*why = "no access to the data channel (hostfs mount or data.bin failed)";
	mkdir(HOSTFS_DIR, 0755);
	if (mount("none", HOSTFS_DIR, "hostfs", 0, dir))
		return -1;
	fd = open(HOSTFS_DIR "/data.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	return fd < 0 ? -1 : fd;
}

/* rep outsb: one instruction per chunk, which TCG and KVM both batch. */
static int write_all(int port, const unsigned char *p, size_t n)
{
	ssize_t w;

	if (port == -2) {
		outsb(DATA_PORT, p, n);
		return 0;
	}
	while (n) {
		w = write(port, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Write a number to a file of the interface. */
static int set_number(const char *path, unsigned long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%lu", v);
	return write_file(path, num);
}

/*
 * Restart the source and read the first n items of a recording of kind
 * record, every stride-th raw sample, into buf (8 n bytes).
 */
static const char *one_restart(unsigned long n, unsigned char *buf, struct part *p,
			       unsigned int stride)
{
	char num[32], info[256];
	unsigned long blocks = 0, inter = 0;
	unsigned int record = ~0u, every = 0;
	int shuffle = -1;
	size_t got = 0, want = 8 * (size_t)n;
	ssize_t r;
	int fd, len;

	if (set_number(RECORD_PATH, p->record) || set_number(STRIDE_PATH, stride))
		return "writing record or record_stride failed";
	fd = open(RAW_PATH, O_RDWR);
	if (fd < 0)
		return "no " RAW_PATH " (CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE off?)";
	len = snprintf(num, sizeof(num), "%lu", n);
	if (write(fd, num, (size_t)len) != len) {
		int err = errno;

		close(fd);
		/* The interface's own verdicts on the noise source (the host
		 * reads the words before the colon, entropy_uml.REFUSED). */
		if (err == EIO)
			return "the kernel refused the recording: its start-up test failed (EIO)";
		if (err == EFAULT)
			return "the kernel refused the recording: a permanent health test failure (EFAULT)";
		return "writing the sample count failed (not a verdict on the noise source)";
	}
	lseek(fd, 0, SEEK_SET);
	while (got < want && (r = read(fd, buf + got, want - got)) > 0)
		got += (size_t)r;
	close(fd);
	if (got != want)
		return "the raw_noise file returned fewer samples than asked for";
	if (read_file(INFO_PATH, info, sizeof(info)) < 0 ||
	    sscanf(strstr(info, "blocks") ? strstr(info, "blocks") : "",
		   "blocks %lu\nintermittent %lu", &blocks, &inter) != 2 ||
	    sscanf(strstr(info, "shuffle") ? strstr(info, "shuffle") : "",
		   "shuffle %d\nrecord %u\nstride %u", &shuffle, &record, &every) != 3)
		return "raw_noise_info is not as documented";
	if (shuffle != p->shuffle)
		return "raw_noise_info: the loop shuffle is not as asked";
	if (record != p->record || every != stride)
		return "raw_noise_info: the recording is not of the kind asked";
	p->blocks += blocks;
	p->intermittent += inter;
	return NULL;
}

static const char *send_part(int port, struct part *p)
{
	unsigned char *buf = malloc(8 * p->len);
	const char *why = NULL;
	long long t0 = now_us();
	unsigned long i;

	if (!buf)
		return "out of memory";
	p->fnv = 0xcbf29ce484222325ULL;
	for (i = 0; i < p->rows && !why; i++) {
		why = one_restart(p->len, buf, p,
				  i % 2 && p->stride > 1 ? p->stride : 1);
		if (!why && write_all(port, buf, 8 * p->len))
			why = "writing to the data channel failed";
		if (!why)
			p->fnv = fnv1a(p->fnv, buf, 8 * p->len);
	}
	free(buf);
	p->us = now_us() - t0;
	report_line("{\"type\":\"entropy-part\",\"part\":\"%s\",\"rows\":%lu,"
		    "\"len\":%lu,\"bytes\":%lu,\"fnv64\":\"%016llx\",\"blocks\":%lu,"
		    "\"intermittent\":%lu,\"us\":%lld,\"ok\":%s}",
		    p->name, p->rows, p->len, 8 * p->rows * p->len,
		    (unsigned long long)p->fnv, p->blocks, p->intermittent,
		    p->us, why ? "false" : "true");
	return why;
}

static unsigned long param(const char *key, unsigned long dflt)
{
	char v[32];

	return cmdline_value(key, v, sizeof(v)) ? strtoul(v, NULL, 10) : dflt;
}

void run_entropy(void)
{
	struct part seq = { .name = "seq", .rows = 1,
			    .len = param("conform.entropy_samples", 1000000) };
	struct part rs = { .name = "restart",
			   .rows = param("conform.entropy_restarts", 1000),
			   .len = param("conform.entropy_len", 1000) };
	struct part blocks = { .name = "blocks", .rows = 1, .record = 1,
			       .len = param("conform.entropy_blocks", 0) };
	struct part strides = { .name = "strides",
				.rows = param("conform.entropy_strides", 0),
				.len = param("conform.entropy_stride_len", 50000),
				.stride = param("conform.entropy_stride", 3) };
	const char *why = NULL;
	char sig[13];
	int port = open_data(&why);

	seq.shuffle = rs.shuffle = param("conform.entropy_shuffle", 1) != 0;

	hypervisor_signature(sig);
	report_line("{\"type\":\"entropy-env\",\"hypervisor\":\"%s\","
		    "\"shuffle\":%d}", sig, seq.shuffle);
	if (port == -1) {
		report_check("guest.entropy.raw", "fail", why, "\"errno\":%d", errno);
		return;
	}
	if (write_file(SHUFFLE_PATH, seq.shuffle ? "Y" : "N")) {
		report_check("guest.entropy.raw", "fail", "writing " SHUFFLE_PATH
			     " failed", "\"errno\":%d", errno);
		return;
	}
	why = seq.len ? send_part(port, &seq) : NULL;
	if (!why)
		why = send_part(port, &rs);
	blocks.shuffle = strides.shuffle = seq.shuffle;
	if (!why && blocks.len)
		why = send_part(port, &blocks);
	if (!why && strides.rows)
		why = send_part(port, &strides);
	if (port >= 0 && close(port) && !why)
		why = "closing data.bin on hostfs failed";
	if (why)
		report_check("guest.entropy.raw", "fail", why, NULL);
	else
		report_check("guest.entropy.raw", "pass", NULL,
			     "\"samples\":%lu,\"restarts\":%lu,\"len\":%lu", seq.len,
			     rs.rows, rs.len);
}
