/* Fuzz target: the GDB/MI push parser.  The first byte picks a chunk size
 * so splitting is fuzzed along with content, and its top bit streaming
 * mode (a big table's rows handed out one by one, mi_parser_set_stream,
 * with a small threshold so short inputs stream too); every record's and
 * item's tree is walked so each node is touched. */
#include "cudbg/mi.h"
#include "tests/fuzz/fuzz.h"

static size_t walk(const struct mi_node *n)
{
	size_t sum = 0;
	for (; n; n = n->next) {
		sum += n->name ? (size_t)n->name[0] : 0;
		if (n->kind == MI_NODE_STRING)
			sum += n->len ? (unsigned char)n->str[n->len - 1] : 0;
		else
			sum += walk(n->child);
	}
	return sum;
}

static void on_record(void *ctx, const struct mi_record *r)
{
	size_t *sum = ctx;
	*sum += walk(r->results) + r->text_len + (size_t)r->kind;
	if (r->kind == MI_REC_RESULT || r->kind == MI_REC_EXEC) {
		const char *s = mi_find_str(r->results, "reason");
		*sum += s ? (size_t)s[0] : 0;
	}
}

static bool want(void *ctx, bool has_token, uint64_t token, const char *klass,
		 const char *name)
{
	(void)ctx, (void)has_token, (void)token;
	return klass[0] != '\0' && name[0] != '\0';
}

static void on_item(void *ctx, bool has_token, uint64_t token,
		    const struct mi_node *item)
{
	size_t *sum = ctx;
	*sum += walk(item) + (has_token ? (size_t)token : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t chunk = 1 + data[0] % 64;
	size_t sum = 0;
	struct mi_parser *p = mi_parser_new(on_record, &sum);
	if (!p)
		return 0;
	mi_parser_set_max_line(p, 1 << 20);
	if (data[0] & 0x80)
		mi_parser_set_stream(p, 16, want, on_item);
	for (size_t off = 1; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		mi_parser_push(p, (const char *)data + off, n);
	}
	mi_parser_finish(p);
	mi_parser_free(p);
	return (int)(sum & 0);
}
