// SPDX-License-Identifier: GPL-2.0
#include "faulttune.h"

int cmd_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ft_err("bench: not implemented yet");
	return 1;
}
