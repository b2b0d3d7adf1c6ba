#!/usr/bin/python3
"""Writes the fuzz regression models that are committed fixtures with one
value made huge, as model_fuzzer's mutations made them (ChangeBinInt):

- model_affine_grid_800x800_table.onnx: affine_grid_2d_op13 with
  size = [1, 1, 800, 800]. Its rule builds a constant grid of 640,000 points;
  the evaluator once held four copies of that table (1.2 GB optimized, past
  the fuzzer's 2 GB limit under ASan).
- model_roi_align_rotated_huge_grid.onnx: mmcv_roi_align_rotated_op11 with
  output_height = 500000: a million sample rows, for constant tables that
  took 72 s to build under ASan. The rule now refuses it by its guard.

Run from the repository root: /usr/bin/python3 tests/fuzz_regressions/derive_memory_cases.py
"""
import numpy as np
import onnx
from onnx import numpy_helper

FIXTURES = "tests/fixtures/torch"
OUT = "tests/fuzz_regressions"


def affine_grid():
    m = onnx.load(f"{FIXTURES}/affine_grid_2d_op13/model.onnx")
    aten = next(n for n in m.graph.node if n.op_type == "ATen")
    size = next(n for n in m.graph.node if n.op_type == "Constant" and n.output[0] == aten.input[1])
    size.attribute[0].t.CopyFrom(numpy_helper.from_array(np.array([1, 1, 800, 800], dtype=np.int64)))
    onnx.save(m, f"{OUT}/model_affine_grid_800x800_table.onnx")


def roi_align_rotated():
    m = onnx.load(f"{FIXTURES}/mmcv_roi_align_rotated_op11/model.onnx")
    node = next(n for n in m.graph.node if n.op_type == "MMCVRoIAlignRotated")
    next(a for a in node.attribute if a.name == "output_height").i = 500000
    onnx.save(m, f"{OUT}/model_roi_align_rotated_huge_grid.onnx")


affine_grid()
roi_align_rotated()
