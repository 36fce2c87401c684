/* Helpers shared by the decoder files in mi/ (not a public header). */
#ifndef CUDBG_MI_DECODE_INT_H
#define CUDBG_MI_DECODE_INT_H

#include "cudbg/decode.h"

/* Copies the string result `name` of the chain into the arena; NULL when
 * absent or not a string; sets *err to MI_ENOMEM when the copy fails. */
const char *dec_str(struct dec_arena *a, const struct mi_node *first,
		    const char *name, int *err);
/* Same for a string node itself. */
const char *dec_node_str(struct dec_arena *a, const struct mi_node *n,
			 int *err);
int dec_find_int(const struct mi_node *first, const char *name, int def);
bool dec_find_u64(const struct mi_node *first, const char *name,
		  uint64_t *out);
/* Creates the arena of a top-level decoded struct. */
int dec_begin(struct dec_arena **arena);
/* The prelude of every list decoder: finds the list `name` in results,
 * starts *arena and allocates room for one element of `size` bytes per
 * item (at least one) into *v.  Returns 0, DEC_EMISSING, DEC_ESHAPE or
 * MI_ENOMEM (the arena, if started, is the caller's to free). */
int dec_list_begin(const struct mi_node *results, const char *name,
		   struct dec_arena **arena, void **v, size_t size,
		   const struct mi_node **list);
/* Decodes a list of variables (tuples or bare names) into the arena. */
int dec_var_list(struct dec_arena *a, const struct mi_node *list,
		 struct dec_var **v, size_t *n);
void dec_focus_from_tuple(const struct mi_node *tuple, struct dec_focus *out);

#endif
