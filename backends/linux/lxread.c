/* Readers of the kernel's counter files: one small reader for each shape
 * of file (name/value lines, fields of a line, rows of a table), shared by
 * every Linux unit. They never trust the text: every number is checked,
 * every line may be cut short, and each failure names the file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lx.h"

int clab_lx_read_into(const char *path, char *buf, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return clab_seterr(CLAB_E_SYS, "cannot open %s: %s%s", path, strerror(errno),
				   errno == ENOENT ? " (no such file: is the kernel feature there, or is the root directory right?)"
				   : errno == EACCES ? " (permission denied)" : "");
	/* /proc files have no size: read until EOF, or until buf is full */
	size_t n = 0;
	for (;;) {
		if (n + 1 >= cap) {
			close(fd);
			return 1;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return clab_seterr(CLAB_E_SYS, "cannot read %s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return CLAB_OK;
}

int clab_lx_slurp(const char *path, char **buf, size_t *len)
{
	*buf = NULL;
	for (size_t cap = 4096;; cap *= 2) {
		if (cap > LX_FILE_MAX)
			return clab_seterr(CLAB_E_SYS, "%s is larger than %u bytes", path,
					   LX_FILE_MAX - 1);
		char *b = malloc(cap);
		if (!b)
			return CLAB_E_NOMEM;
		int rc = clab_lx_read_into(path, b, cap, len);
		if (rc == CLAB_OK) {
			*buf = b;
			return CLAB_OK;
		}
		free(b);
		if (rc < 0)
			return rc;
	}
}

int lx_fmt(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < cap;
}

int clab_lx_u64(const char *s, const char **end, uint64_t *val)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return 0;
	uint64_t v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*val = v;
	if (end)
		*end = s;
	return 1;
}

/* The number must end at a blank or the line's end ("12abc" is no number). */
static int number_at(const char *s, const char **end, uint64_t *val)
{
	const char *e;
	if (!clab_lx_u64(s, &e, val))
		return 0;
	if (*e && *e != ' ' && *e != '\t' && *e != '\n')
		return 0;
	if (end)
		*end = e;
	return 1;
}

static int line_no(const char *buf, const char *at)
{
	int n = 1;
	for (const char *p = buf; p < at; p++)
		n += *p == '\n';
	return n;
}

/* Length of the NAME of a "NAME VALUE" / "NAME: VALUE" line at p. */
static size_t kv_name_len(const char *p)
{
	size_t k = strcspn(p, " \t:\n");
	return k;
}

int clab_lx_kv(const char *buf, const char *what, const char *name, uint64_t *val)
{
	size_t nl = strlen(name);
	for (const char *p = buf; *p; ) {
		const char *eol = strchr(p, '\n');
		size_t k = kv_name_len(p);
		if (k == nl && strncmp(p, name, nl) == 0) {
			const char *v = p + k + (p[k] == ':');
			if (!number_at(v, NULL, val))
				return clab_seterr(CLAB_E_PARSE,
						   "%s line %d: '%s' has no number after it (malformed file)",
						   what, line_no(buf, p), name);
			return CLAB_OK;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return clab_seterr(CLAB_E_PARSE, "%s has no line '%s' (malformed or cut short)",
			   what, name);
}

int clab_lx_kv_names(const char *buf, void (*fn)(const char *name, size_t len, void *arg),
		     void *arg)
{
	int n = 0;
	for (const char *p = buf; *p; ) {
		const char *eol = strchr(p, '\n');
		size_t k = kv_name_len(p);
		uint64_t v;
		if (k && number_at(p + k + (p[k] == ':'), NULL, &v)) {
			fn(p, k, arg);
			n++;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return n;
}

/* Skips `n` blank-separated tokens of the line at p; NULL at the line's end. */
static const char *skip_tokens(const char *p, int n)
{
	for (int i = 0; i < n; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			return NULL;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
	}
	return p;
}

int clab_lx_field(const char *buf, const char *what, int idx, uint64_t *val)
{
	const char *p = skip_tokens(buf, idx);
	if (!p || !number_at(p, NULL, val))
		return clab_seterr(CLAB_E_PARSE, "%s: field %d is missing or not a number (malformed file)",
				   what, idx + 1);
	return CLAB_OK;
}

int clab_lx_row(const char *buf, const char *what, int kcol, const char *key,
		int first, int n, uint64_t *val)
{
	size_t kl = strlen(key);
	for (const char *p = buf; *p; ) {
		const char *eol = strchr(p, '\n');
		const char *t = skip_tokens(p, kcol);
		if (t) {
			while (*t == ' ' || *t == '\t')
				t++;
			size_t tl = strcspn(t, " \t\n");
			if (tl == kl && strncmp(t, key, kl) == 0) {
				const char *v = skip_tokens(t + tl, first - 1);
				uint64_t sum = 0;
				for (int i = 0; i < n; i++) {
					uint64_t x;
					if (!v || !number_at(v, &v, &x))
						return clab_seterr(CLAB_E_PARSE,
								   "%s line %d ('%s'): field %d is missing or not a number (malformed file)",
								   what, line_no(buf, p), key, first + i);
					sum += x;
				}
				*val = sum;
				return CLAB_OK;
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return clab_seterr(CLAB_E_PARSE, "%s has no row '%s' (gone, or the file is cut short)",
			   what, key);
}
