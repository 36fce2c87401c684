# PyTorch: a token id equal to the vocabulary size inside an nn.Module
# forward.  A tiny language model with a 500-token embedding gets a batch
# whose tokenizer added an end-of-text id 500.  Truth: Warp Assert in the
# gather kernel behind nn.Embedding (vectorized_gather_kernel with
# `ind >=0 && ind < ind_dim_size` in PyTorch 2.11, indexSelect* with
# `srcIndex < srcSelectDimSize` in older versions), bad value id 500 of
# 500 rows, hint pytorch-advanced-index or pytorch-index-select; the
# user's line is the embedding call in forward,
# torch_embedding_module.py:23.  Plain run: RuntimeError "CUDA error:
# device-side assert triggered", exit 1.
import torch

VOCAB = 500


class TinyLM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, 32)
        self.head = torch.nn.Linear(32, VOCAB)

    def forward(self, tokens):
        h = self.emb(tokens)  # fault
        return self.head(h.mean(dim=1))


def main():
    model = TinyLM().cuda()
    tokens = torch.arange(8 * 20, device="cuda").view(8, 20) % VOCAB
    tokens[5, 19] = VOCAB  # end-of-text id from a bigger tokenizer
    print(model(tokens).sum().item())


main()
