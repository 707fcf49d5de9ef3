// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune --version: the tool's version and the versions of the tracing
 * libraries it runs with.
 *
 * None of libtracefs, libtraceevent or libtracecmd exports its version at
 * run time, but each one's file is installed as lib<name>.so.<full version>
 * (SONAME lib<name>.so.1 a symlink to it), so the file the dynamic linker
 * actually loaded names the version in use.  dladdr() on one of the
 * library's functions finds that file.  When its name carries no full
 * version (a static link, a bare SONAME copy), the pkg-config version seen
 * at build time is printed instead, and the line says which of the two it is.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <traceevent/event-parse.h>
#include <trace-cmd/trace-cmd.h>
#include "builtin.h"

#ifndef FT_LIBTRACEFS_VERSION
#define FT_LIBTRACEFS_VERSION "unknown"
#endif
#ifndef FT_LIBTRACEEVENT_VERSION
#define FT_LIBTRACEEVENT_VERSION "unknown"
#endif
#ifndef FT_LIBTRACECMD_VERSION
#define FT_LIBTRACECMD_VERSION "unknown"
#endif

struct ft_lib {
	const char *name;
	const void *sym;		/* any function of the library */
	const char *built;		/* pkg-config --modversion at build time */
};

/*
 * "x.y.z" out of ".../lib<name>.so.x.y.z"; NULL unless the suffix has at
 * least three dot-separated numbers (a bare SONAME "lib<name>.so.1" does
 * not tell the version).
 */
static const char *so_version(const char *path)
{
	const char *v = strstr(path, ".so.");
	const char *p;
	int dots = 0;

	if (!v)
		return NULL;
	v += 4;
	for (p = v; *p; p++) {
		if (*p == '.')
			dots++;
		else if (*p < '0' || *p > '9')
			return NULL;
	}
	return dots >= 2 ? v : NULL;
}

static void print_lib(FILE *f, const struct ft_lib *lib)
{
	char real[PATH_MAX];
	const char *v = NULL;
	Dl_info info;

	if (dladdr(lib->sym, &info) && info.dli_fname &&
	    realpath(info.dli_fname, real))
		v = so_version(real);
	if (v)
		fprintf(f, "%-14s %-8s run time (%s), built with %s\n",
			lib->name, v, real, lib->built);
	else
		fprintf(f, "%-14s %-8s build time (pkg-config; the loaded library does not tell)\n",
			lib->name, lib->built);
}

void ft_print_version(FILE *f)
{
	const struct ft_lib libs[] = {
		{ "libtracefs", (const void *)tracefs_instance_create,
		  FT_LIBTRACEFS_VERSION },
		{ "libtraceevent", (const void *)tep_alloc,
		  FT_LIBTRACEEVENT_VERSION },
		{ "libtracecmd", (const void *)tracecmd_open,
		  FT_LIBTRACECMD_VERSION },
	};
	size_t i;

	fprintf(f, "faulttune %s\n", FT_VERSION);
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		print_lib(f, &libs[i]);
}
