/* What a sanitizer finding says about its kernel, from its XML or from
 * the text alone (diag/santext.c).
 *
 * The XML names the kernel on its host stack: nvcc's launch stub
 * (__device_stub__Z9histogram...), which diag_stub_kernel reads.  The
 * text hides the stub and the toolkit's frames above it, and hides the
 * host wrapper named like the kernel when the finding's own frames
 * already name that function (H200, runs 1-20):
 *
 *   device_assert  Device Frame: __assertfail     Host Frame: histogram(...) in device_assert.cu:11, main
 *   trap           Device Frame: check_weights    Host Frame: main
 *   dlopen_kernel  at gather_rows                 Host Frame: launch_gather in dlopen_lib.cu:12, main
 *   lambda_assert  Device Frame: __assertfail     Host Frame: void transform<__nv_dl_wrapper_t<...> >(...)
 *
 *   release_device_assert  Device Frame: __assertfail   Host Frame: main
 *
 * So from the text the kernel is the outermost device frame of the
 * user's code (the kernel under the device functions it called), or for
 * an assert, the function its assertion line names when a host frame of
 * the same name (the wrapper) or the program's own launch stub of that
 * signature (diag/kmangle.c) confirms that it is the launched kernel,
 * or for an assert in a device lambda, the wrapper's template name. */
#include "cudbg/assertline.h"
#include "cudbg/decode.h"
#include "cudbg/diag.h"
#include "cudbg/sanitizer.h"
#include "diag/internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bool diag_is_helper_frame(const char *func)
{
	return func && (strcmp(func, "__assert_fail") == 0 ||
			strcmp(func, "__assertfail") == 0 ||
			strcmp(func, "__trap") == 0 || strcmp(func, "_trap") == 0);
}

/* "operator()" is what an assertion line names in PyTorch's elementwise,
 * gather and scatter kernels (torch_bce, torch_gather on the H200, run
 * 20): the device code that asserted, not the kernel, which is then
 * unknown rather than "operator()". */
bool diag_lambda_call_operator(const char *func)
{
	if (!func)
		return false;
	size_t n = strlen(func);
	return strncmp(func, "lambda", 6) == 0 || strstr(func, "operator()(") ||
	       (n >= 10 && strcmp(func + n - 10, "operator()") == 0);
}

const char *diag_san_device_kernel(const struct diag_san_record *r)
{
	for (size_t i = r ? r->n_device : 0; i-- > 0;) {
		const struct diag_san_frame *fr = &r->device[i];
		if (fr->func && !diag_is_helper_frame(fr->func) &&
		    !dec_frame_is_toolkit(fr->func, fr->path, true))
			return fr->func;
	}
	return NULL;
}

/* nvcc's wrapper of a kernel templated on a device lambda: its template
 * argument is the lambda's closure type, __nv_dl_wrapper_t (a device
 * lambda) or __nv_hdl_wrapper_t (a host-device one).  The text names it
 * "void transform<__nv_dl_wrapper_t<...> >(...)", the XML "void
 * __wrapper__device_stub_transform<__nv_dl_wrapper_t<...". */
static char *lambda_wrapper_name(const char *func)
{
	static const char *const marks[] = {
		"<__nv_dl_wrapper_t<", "<__nv_hdl_wrapper_t<",
	};
	static const char stub[] = "__wrapper__device_stub_";
	const char *lt = NULL;
	for (size_t i = 0; !lt && i < sizeof marks / sizeof *marks; i++)
		lt = strstr(func, marks[i]);
	if (!lt)
		return NULL;
	const char *a = lt;
	while (a > func && (isalnum((unsigned char)a[-1]) || a[-1] == '_' ||
			    a[-1] == ':'))
		a--;
	if (strncmp(a, stub, sizeof stub - 1) == 0)
		a += sizeof stub - 1;
	return a < lt ? diag_strndup(a, (size_t)(lt - a)) : NULL;
}

char *diag_san_lambda_kernel(const struct diag_san_record *r)
{
	/* The user's own frame only: PyTorch's gpu_kernel_impl<__nv_hdl_
	 * wrapper_t<...>> in libtorch_cuda.so (no source line) launches a
	 * kernel of another name (torch_bce, run 20). */
	for (size_t i = 0; r && i < r->n_host; i++) {
		const struct diag_san_frame *h = &r->host[i];
		if (!h->func || !h->path || !h->line || h->python ||
		    dec_path_in_cuda_toolkit(h->path))
			continue;
		char *k = lambda_wrapper_name(h->func);
		if (k)
			return k;
	}
	return NULL;
}

/* The function of the text's first assertion line, cut to its base name
 * (into buf), and its mangled name (into mangled, "" when it is not one
 * diag_kernel_mangle mangles), or false. */
static bool first_assert_func(const char *text, size_t len, char *buf,
			      size_t cap, bool *lambda, char *mangled,
			      size_t mcap)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		struct diag_assert_line a;
		if (diag_assert_parse(p, (size_t)(e - p), &a) == 1 && a.kernel_len) {
			char *sig = diag_strndup(a.kernel, a.kernel_len);
			if (!sig)
				return false;
			*lambda = diag_lambda_call_operator(sig);
			size_t n = dec_func_short(sig, buf, cap);
			if (!diag_kernel_mangle(sig, mangled, mcap))
				mangled[0] = '\0';
			free(sig);
			return n > 0 && n < cap;
		}
		p = e + (nl != NULL);
	}
	return false;
}

static bool host_frame_named(const struct diag_san_record *r,
			     const char *name)
{
	char b[256];
	for (size_t i = 0; i < r->n_host; i++) {
		const struct diag_san_frame *h = &r->host[i];
		if (!h->func || h->python)
			continue;
		size_t n = dec_func_short(h->func, b, sizeof b);
		if (n > 0 && n < sizeof b && strcmp(b, name) == 0)
			return true;
	}
	return false;
}

bool diag_san_text_names_kernel(const struct diag_san_record *r,
				const char *text, size_t len,
				const char *program)
{
	if (!r)
		return false;
	if (diag_san_device_kernel(r))
		return true;
	if (r->func && !diag_is_helper_frame(r->func) &&
	    !dec_frame_is_toolkit(r->func, r->path, true))
		return true;
	char name[256], mangled[512];
	bool lambda = false;
	if (!first_assert_func(text, len, name, sizeof name, &lambda, mangled,
			       sizeof mangled))
		return false;
	if (lambda) {
		char *k = diag_san_lambda_kernel(r);
		bool found = k != NULL;
		free(k);
		return found;
	}
	/* a release build's text has no wrapper frame (release_device_
	 * assert, run 21): the program's own launch stub of that signature
	 * says the assert's function is the kernel */
	return host_frame_named(r, name) ||
	       (mangled[0] && diag_program_has_stub(program, mangled));
}
