/* Data files: read only when regular, written whole or not at all. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
	       : S_ISSOCK(mode) ? "a socket" : "a special file";
}

/* Data files are regular files: a device such as /dev/zero would be read
 * forever, opening a FIFO would wait for a writer, a directory holds no
 * data. stat first, so that nothing but a regular file is opened at all;
 * O_NONBLOCK in case the path changed in between. */
FILE *clab_data_open(const char *path, int err, const char *what)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		clab_seterr(err, "%s %s: %s", what, path, strerror(errno));
		return NULL;
	}
	int fd = -1;
	if (S_ISREG(st.st_mode)) {
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			clab_seterr(err, "%s %s: %s", what, path, strerror(errno));
			return NULL;
		}
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		clab_seterr(err, "%s %s is %s, not a file (give the path of a regular file)",
			    what, path, file_kind(st.st_mode));
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "r");
	if (!f) {
		clab_seterr(err, "%s %s: %s", what, path, strerror(errno));
		close(fd);
	}
	return f;
}

/* The file a path that does not resolve names: itself, or a dangling
 * symlink's target (relative to the link's directory). malloc'd. */
static char *new_path(const char *path)
{
	struct stat st;
	char to[4096];
	ssize_t k;
	if (lstat(path, &st) || !S_ISLNK(st.st_mode) ||
	    (k = readlink(path, to, sizeof to - 1)) <= 0)
		return strdup(path);
	to[k] = 0;
	const char *slash = strrchr(path, '/');
	int dir = to[0] == '/' || !slash ? 0 : (int)(slash - path + 1);
	char *p = malloc((size_t)dir + (size_t)k + 1);
	if (p)
		sprintf(p, "%.*s%s", dir, path, to);
	return p;
}

/* A path to write: a regular file, or none yet. A symlink is written
 * through, beside its target, so the link stays. */
int clab_outfile_open(clab_outfile *o, const char *path, int err, const char *what)
{
	struct stat st;
	*o = (clab_outfile){NULL, NULL, NULL};
	if (!path || !*path)
		return clab_seterr(err, "%s: no path given", what);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return clab_seterr(err, "%s %s is %s, not a file (give the path of a regular file)",
				   what, path, file_kind(st.st_mode));
	o->path = realpath(path, NULL);
	if (!o->path)
		o->path = new_path(path);
	size_t n = strlen(o->path) + 48;
	o->tmp = o->path ? malloc(n) : NULL;
	if (!o->tmp) {
		free(o->path);
		o->path = NULL;
		return clab_seterr(CLAB_E_NOMEM, "%s %s: out of memory", what, path);
	}
	int fd = -1;
	for (int i = 0; i < 100 && fd < 0; i++) {
		snprintf(o->tmp, n, "%s.%ld.%d.tmp", o->path, (long)getpid(), i);
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
		close(fd);
		unlink(o->tmp);
		fd = -1;
	}
	if (fd < 0) {
		int e = errno;
		clab_outfile_discard(o);
		return clab_seterr(err, "cannot create %s %s: %s", what, path, strerror(e));
	}
	return CLAB_OK;
}

void clab_outfile_discard(clab_outfile *o)
{
	if (o->f) {
		fclose(o->f);
		unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	*o = (clab_outfile){NULL, NULL, NULL};
}

int clab_outfile_commit(clab_outfile *o, int err, const char *what)
{
	int bad = fflush(o->f) || ferror(o->f), e = errno;
	if (fclose(o->f) && !bad)
		bad = 1, e = errno;
	o->f = NULL;
	if (!bad && rename(o->tmp, o->path))
		bad = 1, e = errno;
	int rc = bad ? clab_seterr(err, "cannot write %s %s: %s", what, o->path, strerror(e)) : CLAB_OK;
	if (bad)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	*o = (clab_outfile){NULL, NULL, NULL};
	return rc;
}
