// SPDX-License-Identifier: GPL-2.0
#include "faulttune.h"

int cmd_tune(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ft_err("tune: not implemented yet");
	return 1;
}
