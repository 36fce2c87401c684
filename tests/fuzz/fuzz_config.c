/* Fuzz target: the config file parser (app/config.c), then merging what
 * it read into a set of options. */
#include "cudbg/config.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cudbg_config c;
	struct cudbg_options o;
	char err[512];
	memset(&c, 0, sizeof c);
	if (config_parse(&c, "fuzz.config", (const char *)data, size, err,
			 sizeof err) == 0) {
		memset(&o, 0, sizeof o);
		config_apply(&c, &o);
		/* config_apply allocates the directory list and the sanitizer
		 * flags (copies of the file's); options_free frees both, as
		 * the program does at its end. */
		options_free(&o);
	} else if (!memchr(err, '\0', sizeof err)) {
		__builtin_trap(); /* the message must be a terminated string */
	}
	config_free(&c);
	return 0;
}
