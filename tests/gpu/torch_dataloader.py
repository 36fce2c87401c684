# PyTorch: a fault inside a DataLoader loop with worker processes.  Two
# workers (forked, CPU only) build batches of token ids; sample 100 (in
# batch 3 of 32) carries id 256 for a 256-row embedding.  The fault is
# in the main process, which a debugger following the parent must catch
# while the workers live.  Truth: Warp Assert in the gather kernel
# behind nn.Embedding (vectorized_gather_kernel in PyTorch 2.11, or
# indexSelect*), bad value id 256 of 256 rows, hint
# pytorch-advanced-index or pytorch-index-select; the user's line is the
# model call in the loop, torch_dataloader.py:33 (train).  Plain run:
# RuntimeError "CUDA error: device-side assert triggered", exit 1.
import torch
from torch.utils.data import DataLoader, Dataset

VOCAB = 256


class Tokens(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, i):
        ids = torch.arange(16) + i
        ids = ids % VOCAB
        if i == 100:
            ids[3] = VOCAB  # an unknown-token id from a newer vocabulary
        return ids


def train(model, loader):
    total = 0.0
    for batch in loader:
        batch = batch.cuda(non_blocking=True)
        total += model(batch).sum().item()  # fault
    return total


def main():
    model = torch.nn.Embedding(VOCAB, 8).cuda()
    loader = DataLoader(Tokens(), batch_size=32, shuffle=False, num_workers=2)
    print(train(model, loader))


if __name__ == "__main__":
    main()
