// SPDX-License-Identifier: GPL-2.0
/*
 * ft_write FILE STRING: write STRING to FILE in one write(2) call and
 * print "ok" or the errno name (EINVAL, ENOMEM, ...).  Exit 0 on success.
 * "\n" and "\0" in STRING are a newline and a NUL byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	}
	return strerror(e);
}

int main(int argc, char **argv)
{
	size_t len = 0, i;
	char *buf;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: ft_write FILE STRING\n");
		return 2;
	}
	buf = malloc(strlen(argv[2]) + 1);
	for (i = 0; argv[2][i]; i++) {
		if (argv[2][i] == '\\' && argv[2][i + 1] == 'n') {
			buf[len++] = '\n';
			i++;
		} else if (argv[2][i] == '\\' && argv[2][i + 1] == '0') {
			buf[len++] = '\0';
			i++;
		} else {
			buf[len++] = argv[2][i];
		}
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("open: %s\n", errname(errno));
		return 1;
	}
	n = write(fd, buf, len);
	if (n < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	printf("ok %zd\n", n);
	return 0;
}
