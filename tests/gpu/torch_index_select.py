# PyTorch: index_select with a row id past the table.  Feature rows for
# a batch of node ids, one of which (1000) is the id of a node added
# after the 1000-row feature table was built.  Truth: Warp Assert in the
# index_select kernel (indexSelectSmallIndex/LargeIndex with
# `srcIndex < srcSelectDimSize`, or vectorized_gather_kernel with
# `ind >=0 && ind < ind_dim_size` in PyTorch 2.11), bad value 1000 of
# 1000 rows, hint pytorch-index-select or pytorch-advanced-index; the
# user's line is torch_index_select.py:14 in node_features.  Plain run:
# RuntimeError "CUDA error: device-side assert triggered", exit 1.
import torch


def node_features(table, nodes):
    return table.index_select(0, nodes)  # fault


def main():
    table = torch.randn(1000, 16, device="cuda")
    nodes = torch.tensor([3, 17, 999, 1000, 42], device="cuda")
    print(node_features(table, nodes).sum().item())


main()
