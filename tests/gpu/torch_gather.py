# PyTorch: torch.gather with an index past the dimension.  Top-k style
# picking of scores per row with positions from a shifted argmax (+1),
# which gives 8 for a row whose best column is the last of 8.  Truth:
# Warp Assert in the scatter/gather kernel (ScatterGatherKernel.cu),
# assertion `idx_dim >= 0 && idx_dim < index_size && "index out of
# bounds"`, bad value 8 for size 8, hint pytorch-scatter-gather; the
# user's line is torch_gather.py:14 in pick_next.  Plain run:
# RuntimeError "CUDA error: device-side assert triggered", exit 1.
import torch


def pick_next(scores):
    nxt = scores.argmax(dim=1, keepdim=True) + 1  # the column after the best
    return torch.gather(scores, 1, nxt)  # fault


def main():
    scores = torch.zeros(16, 8, device="cuda")
    scores[:, 3] = 1.0
    scores[11, 7] = 5.0  # row 11: best column is the last
    print(pick_next(scores).sum().item())


main()
