// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers every part of the guest's /init shares: files, the kernel
 * command line, the CRNG's state, the CPU's hypervisor signature, time,
 * little-endian fields and hex, an AF_ALG rng socket, the names of the
 * 22 DRBG instances, and reading a whole file.  Declared in util.h.
 */
#include "util.h"

#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const drbg_drivers[22] = {
	"drbg_pr_ctr_aes128", "drbg_pr_ctr_aes192", "drbg_pr_ctr_aes256",
	"drbg_pr_sha1", "drbg_pr_sha384", "drbg_pr_sha512", "drbg_pr_sha256",
	"drbg_pr_hmac_sha1", "drbg_pr_hmac_sha384", "drbg_pr_hmac_sha512",
	"drbg_pr_hmac_sha256",
	"drbg_nopr_ctr_aes128", "drbg_nopr_ctr_aes192", "drbg_nopr_ctr_aes256",
	"drbg_nopr_sha1", "drbg_nopr_sha384", "drbg_nopr_sha512",
	"drbg_nopr_sha256", "drbg_nopr_hmac_sha1", "drbg_nopr_hmac_sha384",
	"drbg_nopr_hmac_sha512", "drbg_nopr_hmac_sha256",
};

int read_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while (got + 1 < n && (r = read(fd, buf + got, n - 1 - got)) > 0)
		got += (size_t)r;
	buf[got] = '\0';
	close(fd);
	return (int)got;
}

/* Write text to path (a sysfs or debugfs knob); 0, or -1 with errno. */
int write_file(const char *path, const char *text)
{
	size_t n = strlen(text);
	int fd = open(path, O_WRONLY), err;

	if (fd < 0)
		return -1;
	err = write(fd, text, n) == (ssize_t)n ? 0 : -1;
	if (close(fd))
		err = -1;
	return err;
}

const char *kernel_cmdline(void)
{
	static char cmdline[4096];
	static int loaded;
	char *nl;

	if (!loaded) {
		read_file("/proc/cmdline", cmdline, sizeof(cmdline));
		nl = strchr(cmdline, '\n');
		if (nl)
			*nl = '\0';
		loaded = 1;
	}
	return cmdline;
}

const char *cmdline_value(const char *key, char *out, size_t n)
{
	const char *cmdline = kernel_cmdline();
	size_t klen = strlen(key);
	const char *p = cmdline;

	while ((p = strstr(p, key))) {
		if ((p == cmdline || p[-1] == ' ') && p[klen] == '=') {
			size_t i = 0;

			p += klen + 1;
			while (p[i] && p[i] != ' ' && p[i] != '\n' && i + 1 < n) {
				out[i] = p[i];
				i++;
			}
			out[i] = '\0';
			return out;
		}
		p += klen;
	}
	return NULL;
}

int crng_ready_now(void)
{
	char b;

	return getrandom(&b, 1, GRND_NONBLOCK) == 1;
}

/* "TCGTCGTCGTCG", "KVMKVMKVM" or "": the hypervisor's CPUID signature. */
void hypervisor_signature(char sig[13])
{
	unsigned int a, b, c, d;

	sig[0] = '\0';
	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))
		return;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
}

long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void hex_encode(char *out, const uint8_t *b, size_t n)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int rng_bind(const char *name)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int s = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (s < 0)
		return -errno;
	strcpy((char *)sa.salg_type, "rng");
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;

		close(s);
		return e;
	}
	return s;
}

int read_whole(const char *path, uint8_t **bufp, size_t *lenp)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	if (st.st_size < 0) {
		/* Not a size: and fstat() succeeded, so errno says nothing. */
		close(fd);
		return -EIO;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*bufp = buf;
	*lenp = got;
	return 0;
}
