# PyTorch: a token id at the vocabulary size.  An embedding of 1000 rows
# looked up with ids from a tokenizer that has 1001 tokens.  Expected:
# Warp Assert in an index_select kernel (indexSelectSmallIndex or
# indexSelectLargeIndex), assertion `srcIndex < srcSelectDimSize`
# (Indexing.cu), hint pytorch-index-select; with the memcheck report the
# call line is torch_embedding.py:14 in embed,
# run from torch_embedding.py:25 (<module>).
import torch

VOCAB = 1000


def embed(table, ids):
    return table(ids)


def main():
    table = torch.nn.Embedding(VOCAB, 32).cuda()
    ids = torch.randint(0, VOCAB, (4, 50), device="cuda")
    ids[2, 17] = VOCAB  # a token id the table does not have
    out = embed(table, ids)
    print("sum", out.sum().item())


main()
