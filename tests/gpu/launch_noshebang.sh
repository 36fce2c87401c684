# No #! line: execvp() and every shell hand this file to /bin/sh, and
# so does cudbg-tui (issue 29 item 3); gdb alone says "No executable file
# specified".  It execs python on torch_label.py: the same device assert.
# Truth (torch_label's): nll_loss's assert `t >= 0 && t < n_classes` in
# nll_loss_forward_reduce_cuda_kernel_2d, a label of 4 for 4 classes, the
# script line torch_label.py:12 in train_step, hint pytorch-class-index.
cd "$(dirname "$0")" || exit 1
exec python3 torch_label.py "$@"
