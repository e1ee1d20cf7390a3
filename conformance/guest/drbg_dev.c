// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DRBG test interface for the CAVS and ACVP runners; see drbg_dev.h.
 * The real interface and the host tests' fake have the same five calls,
 * so drbg_dev_call() is the same code for both.
 */
#include "cavs.h"
#include "drbg_dev.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DRBG_DEV_FAKE

int drbg_dev_present(void)
{
	return access(CAVS_DEV, F_OK) ? -errno : 0;
}

static int dev_open(void)
{
	return open(CAVS_DEV, O_RDWR | O_CLOEXEC);
}

static ssize_t dev_write(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len);
}

static int dev_rewind(int fd)
{
	return lseek(fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

static ssize_t dev_read(int fd, void *buf, size_t len)
{
	return read(fd, buf, len);
}

static void dev_close(int fd)
{
	close(fd);
}

#else /* DRBG_DEV_FAKE */

static uint8_t *fake;
static size_t fake_len, fake_pos;
static const uint8_t *fake_resp;
static size_t fake_resp_len, fake_read;
static unsigned int fake_count;

int drbg_dev_present(void)
{
	const char *path = getenv("DRBG_FAKE_ANSWERS");

	if (fake)
		return 0;
	if (!path)
		return -ENOENT;
	return read_whole(path, &fake, &fake_len);
}

static int dev_open(void)
{
	int err = drbg_dev_present();

	if (err) {
		errno = -err;
		return -1;
	}
	return 1000;
}

static ssize_t dev_write(int fd, const void *buf, size_t len)
{
	uint32_t req_len, resp_len, out;
	const uint8_t *req;

	(void)fd;
	fake_resp = NULL;
	out = len >= 16 ? get_le32((const uint8_t *)buf + 12) : 0;
	if (len > CAVS_REQ_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	if (!out || out > CAVS_OUT_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (fake_pos + 4 > fake_len) {
		errno = ENOSPC;
		return -1;
	}
	/* From here on, each write uses up one answer, matching or not. */
	req_len = get_le32(fake + fake_pos);
	resp_len = get_le32(fake + fake_pos + 4 + req_len);
	req = fake + fake_pos + 4;
	fake_pos += 8 + (size_t)req_len + resp_len;
	fake_count++;
	if (req_len != len || memcmp(req, buf, len)) {
		fprintf(stderr, "fake: request %u is not the expected one\n",
			fake_count);
		errno = EINVAL;
		return -1;
	}
	fake_resp = req + req_len + 4;
	fake_resp_len = resp_len;
	return (ssize_t)len;
}

static int dev_rewind(int fd)
{
	(void)fd;
	fake_read = 0;
	return 0;
}

/* At most 4096 bytes a call, as a kernel read may. */
static ssize_t dev_read(int fd, void *buf, size_t len)
{
	(void)fd;
	if (!fake_resp)
		return 0;
	if (len > fake_resp_len - fake_read)
		len = fake_resp_len - fake_read;
	if (len > 4096)
		len = 4096;
	memcpy(buf, fake_resp + fake_read, len);
	fake_read += len;
	return (ssize_t)len;
}

static void dev_close(int fd)
{
	(void)fd;
}

#endif /* DRBG_DEV_FAKE */

long drbg_dev_call(const void *req, size_t len, uint8_t *resp, size_t cap,
		   const char **stage)
{
	size_t got = 0;
	ssize_t n;
	int fd = dev_open(), err;

	*stage = "open";
	if (fd < 0)
		return -errno;
	*stage = "write";
	n = dev_write(fd, req, len);
	if (n != (ssize_t)len) {
		err = n < 0 ? -errno : -EIO;
		dev_close(fd);
		return err;
	}
	*stage = "lseek";
	if (dev_rewind(fd)) {
		err = -errno;
		dev_close(fd);
		return err;
	}
	*stage = "read";
	while (got < cap) {
		n = dev_read(fd, resp + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			dev_close(fd);
			return err;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	dev_close(fd);
	*stage = "response";
	if (got < CAVS_RESP_HDR_LEN || memcmp(resp, CAVS_RESP_MAGIC, 4))
		return -EPROTO;
	*stage = NULL;
	return (long)got;
}
