/* Prints the offsets diag/pymem.c's layout table holds, for the CPython
 * whose headers it is built with (docs/python.md, "The stack read from
 * memory"):
 *   cc -I$P/include/python3.N -I$P/include/python3.N/internal \
 *      tests/data/pylines/offsets.c -o /tmp/offsets && /tmp/offsets
 * where $P is the installation's prefix (Debian: /usr, with the
 * python3.N-dev package). */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif
#include "internal/pycore_code.h"
int main(void){
printf("runtime.initialized %zu\n", offsetof(_PyRuntimeState, initialized));
printf("runtime.interpreters.head %zu\n", offsetof(_PyRuntimeState, interpreters.head));
#if PY_VERSION_HEX >= 0x030B0000
printf("interp.threads.head %zu\n", offsetof(PyInterpreterState, threads.head));
#else
printf("interp.tstate_head %zu\n", offsetof(PyInterpreterState, tstate_head));
#endif
printf("tstate.next %zu\n", offsetof(PyThreadState, next));
printf("tstate.thread_id %zu\n", offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030B0000
printf("tstate.native_thread_id %zu\n", offsetof(PyThreadState, native_thread_id));
#endif
#if PY_VERSION_HEX >= 0x030D0000
printf("tstate.current_frame %zu\n", offsetof(PyThreadState, current_frame));
#elif PY_VERSION_HEX >= 0x030B0000
printf("tstate.cframe %zu\n", offsetof(PyThreadState, cframe));
printf("cframe.current_frame %zu\n", offsetof(_PyCFrame, current_frame));
#else
printf("tstate.frame %zu\n", offsetof(PyThreadState, frame));
#endif
#if PY_VERSION_HEX >= 0x030D0000
printf("frame.code %zu\n", offsetof(_PyInterpreterFrame, f_executable));
printf("frame.previous %zu\n", offsetof(_PyInterpreterFrame, previous));
printf("frame.instr %zu\n", offsetof(_PyInterpreterFrame, instr_ptr));
printf("frame.owner %zu\n", offsetof(_PyInterpreterFrame, owner));
#elif PY_VERSION_HEX >= 0x030B0000
printf("frame.code %zu\n", offsetof(_PyInterpreterFrame, f_code));
printf("frame.previous %zu\n", offsetof(_PyInterpreterFrame, previous));
printf("frame.instr %zu\n", offsetof(_PyInterpreterFrame, prev_instr));
printf("frame.owner %zu\n", offsetof(_PyInterpreterFrame, owner));
#else
printf("frame.code %zu\n", offsetof(PyFrameObject, f_code));
printf("frame.previous %zu\n", offsetof(PyFrameObject, f_back));
printf("frame.lasti %zu\n", offsetof(PyFrameObject, f_lasti));
#endif
printf("code.filename %zu\n", offsetof(PyCodeObject, co_filename));
printf("code.name %zu\n", offsetof(PyCodeObject, co_name));
#if PY_VERSION_HEX >= 0x030B0000
printf("code.qualname %zu\n", offsetof(PyCodeObject, co_qualname));
printf("code.code_adaptive %zu\n", offsetof(PyCodeObject, co_code_adaptive));
#endif
printf("code.firstlineno %zu\n", offsetof(PyCodeObject, co_firstlineno));
printf("code.linetable %zu\n", offsetof(PyCodeObject, co_linetable));
printf("ascii.size %zu compact.size %zu\n", sizeof(PyASCIIObject), sizeof(PyCompactUnicodeObject));
printf("ascii.length %zu ascii.state %zu\n", offsetof(PyASCIIObject, length), offsetof(PyASCIIObject, state));
printf("bytes.sval %zu bytes.size %zu\n", offsetof(PyBytesObject, ob_sval), offsetof(PyVarObject, ob_size));
printf("owner CSTACK %d\n",
#if PY_VERSION_HEX >= 0x030C0000
 FRAME_OWNED_BY_CSTACK
#else
 -1
#endif
);
return 0;}
