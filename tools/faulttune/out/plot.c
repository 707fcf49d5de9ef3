// SPDX-License-Identifier: GPL-2.0
/*
 * Charts with gnuplot, without a shell: the data and the script go to
 * temporary files and gnuplot runs from an argument vector (execvp), with
 * the output and data file names as its call arguments ARG1 and ARG2, so
 * no user-given name is ever parsed as shell or gnuplot text.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "faulttune.h"
#include "out.h"

/* a temporary file holding len bytes of text; 0, or -1 with errno */
static int temp_file(char *name, const char *text, size_t len)
{
	int fd = mkstemp(name);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t r = write(fd, text + off, len - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;

			close(fd);
			unlink(name);
			errno = e;
			return -1;
		}
		off += r;
	}
	if (close(fd)) {
		int e = errno;

		unlink(name);
		errno = e;
		return -1;
	}
	return 0;
}

int ft_plot(const char *out, const char *script, const char *data, size_t len)
{
	char dat[] = "/tmp/faulttune-plot-XXXXXX";
	char gp[] = "/tmp/faulttune-plot-XXXXXX";
	const char *ext = strrchr(out, '.');
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	char *text = NULL;
	struct stat st;
	int status = 0, ret = -1, have_dat = 0, have_gp = 0;
	pid_t pid;

	/* the terminal from the extension, the rest from the caller */
	if (asprintf(&text, "set terminal %s\nset output ARG1\n%s\n",
		     ext && !strcmp(ext, ".png") ? "pngcairo" : "svg",
		     script) < 0) {
		ft_err("--plot %s: out of memory", out);
		return -1;
	}
	if (temp_file(dat, data, len) == 0)
		have_dat = 1;
	if (have_dat && temp_file(gp, text, strlen(text)) == 0)
		have_gp = 1;
	if (!have_gp) {
		ft_err("--plot %s: cannot write a temporary file in /tmp: %s",
		       out, strerror(errno));
		goto out;
	}
	/* a caller that ignores SIGCHLD would lose gnuplot's exit status */
	sigaction(SIGCHLD, &dfl, &old);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "gnuplot", "-c", gp, (char *)out, dat, NULL };
		int null = open("/dev/null", O_WRONLY);

		/* nothing of gnuplot's on our stdout (it may be the JSON) */
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGCHLD, &old, NULL);
	if (pid < 0)
		ft_err("--plot %s: cannot start gnuplot: %s", out, strerror(errno));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		ft_err("--plot %s: gnuplot is not installed (apt-get install "
		       "gnuplot-nox)", out);
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		ft_err("--plot %s: gnuplot failed (%s %d)", out,
		       WIFEXITED(status) ? "exit status" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	else if (stat(out, &st) || !st.st_size)	/* gnuplot goes on after 'cannot open' */
		ft_err("--plot %s: gnuplot wrote no file there", out);
	else
		ret = 0;
out:
	if (have_dat)
		unlink(dat);
	if (have_gp)
		unlink(gp);
	free(text);
	return ret;
}
