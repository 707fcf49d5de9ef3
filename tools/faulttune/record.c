// SPDX-License-Identifier: GPL-2.0
#include "faulttune.h"

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ft_err("record: not implemented yet");
	return 1;
}
