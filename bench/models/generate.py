#!/usr/bin/python3
"""Deterministic torch-style benchmark models for issue 11 (Debian python3-onnx).

Every model is opset 17 with about 10% ATen fallback nodes in the exact form
torch 1.13 exports them (see tests/fixtures/torch/{aten_triu_op13,
cumsum_dim1_op9,celu_float32_op9,external_data_asinh_op13}): an ATen node of
domain org.pytorch.aten with attributes operator / overload_name, its scalar
arguments as Constant nodes with a 0-d int64 or float64 raw_data tensor.

  chain    --nodes N        a chain of N nodes (the 1M-node model)
  layers   --layers L --hidden D [--external]
                            L transformer-like layers, 12*D*D float32 weights
                            each (48 layers, D=832: 1.6 GB; D=1664: 6.4 GB)
  control  --blocks B       B If/Loop blocks, each with ATen nodes inside

Weights come from numpy's PCG64 with a fixed seed: the same arguments give
the same bytes. External data goes to OUT's folder as <stem>.weights.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

ATEN = "org.pytorch.aten"
ATEN_OPS = ("asinh", "triu", "cumsum", "leaky_relu")


class Builder:
    """Adds nodes to one graph with torch-style names (/scope/Op_N)."""

    def __init__(self, graph, scope):
        self.graph, self.scope, self.count = graph, scope, {}

    def name(self, op):
        n = self.count.get(op, 0)
        self.count[op] = n + 1
        return f"{self.scope}/{op}" + (f"_{n}" if n else "")

    def node(self, op, inputs, **attrs):
        name = self.name(op)
        out = name + "_output_0"
        node = self.graph.node.add()
        node.op_type, node.name = op, name
        node.input.extend(inputs)
        node.output.append(out)
        if attrs:
            node.attribute.extend(helper.make_attribute(k, v) for k, v in attrs.items())
        return out

    def constant(self, value, dtype=None):
        """A 0-d Constant as torch writes scalar arguments: int64 or float64 raw_data."""
        dtype = dtype or (np.int64 if isinstance(value, int) else np.float64)
        t = TensorProto()
        t.data_type = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]
        t.raw_data = np.array(value, dtype=dtype).tobytes()
        return self.node("Constant", [], value=t)

    def aten(self, op, x, k):
        """One ATen fallback node (plus its Constant arguments); k varies the scalars."""
        if op == "asinh":
            args = [x]
        elif op == "triu":
            args = [x, self.constant(k % 3 - 1)]
        elif op == "cumsum":
            args = [x, self.constant(k % 2 - 2), ""]  # dim, dtype=None as an empty input
        else:
            args = [x, self.constant(0.01 * (1 + k % 5))]
        name = self.name("ATen")
        node = self.graph.node.add()
        node.op_type, node.domain, node.name = "ATen", ATEN, name
        node.input.extend(args)
        node.output.append(name + "_output_0")
        node.attribute.extend([helper.make_attribute("operator", op),
                               helper.make_attribute("overload_name", "")])
        return node.output[0]


def model_of(graph):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ATEN, 1)],
                          producer_name="pytorch", producer_version="1.13.0")
    m.ir_version = 8
    return m


def float_input(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# Eight plain ops between ATen nodes: with the ATen node (and its Constant, or
# a tenth plain op for asinh) 10% of the nodes are ATen.
PLAIN = ("Relu", "Sigmoid", "Neg", "Abs", "Tanh", "Exp", "Softsign", "Sin")


def chain(nodes):
    graph = helper.make_graph([], "torch_jit", [float_input("x", [4, 8, 8])], [])
    b = Builder(graph, "")
    x, i = "x", 0
    while len(graph.node) < nodes:
        for op in PLAIN:
            x = b.node(op, [x])
        op = ATEN_OPS[i % 4]
        x = b.aten(op, x, i)
        if op == "asinh":
            x = b.node("Relu", [x])
        i += 1
    del graph.node[nodes:]
    x = graph.node[-1].output[0]
    graph.output.append(float_input(x, [4, 8, 8]))
    return model_of(graph)


class Weights:
    """Initializers embedded as raw_data, or appended to one external file."""

    def __init__(self, graph, external, out_path, seed):
        self.graph, self.rng = graph, np.random.default_rng(seed)
        self.file = None
        if external:
            self.location = os.path.splitext(os.path.basename(out_path))[0] + ".weights"
            self.file = open(os.path.join(os.path.dirname(os.path.abspath(out_path)), self.location), "wb")

    def add(self, name, shape):
        data = (self.rng.standard_normal(shape, dtype=np.float32) * 0.02).tobytes()
        t = self.graph.initializer.add()
        t.name, t.data_type = name, TensorProto.FLOAT
        t.dims.extend(shape)
        if self.file is None:
            t.raw_data = data
        else:
            offset = self.file.tell()
            self.file.write(data)
            t.data_location = TensorProto.EXTERNAL
            for k, v in (("location", self.location), ("offset", str(offset)), ("length", str(len(data)))):
                e = t.external_data.add()
                e.key, e.value = k, v
        return name

    def close(self):
        if self.file:
            self.file.close()


def layers(n_layers, hidden, seq, external, out_path):
    graph = helper.make_graph([], "torch_jit", [float_input("input", [1, seq, hidden])], [])
    w = Weights(graph, external, out_path, seed=11)
    x, k = "input", 0
    for layer in range(n_layers):
        p = f"layers.{layer}"
        b = Builder(graph, f"/layers.{layer}")
        ln_w = w.add(f"{p}.ln.weight", [hidden])
        ln_b = w.add(f"{p}.ln.bias", [hidden])
        h = b.node("LayerNormalization", [x, ln_w, ln_b], axis=-1, epsilon=1e-5)
        q = b.node("MatMul", [h, w.add(f"{p}.attn.q.weight", [hidden, hidden])])
        kk = b.node("MatMul", [h, w.add(f"{p}.attn.k.weight", [hidden, hidden])])
        v = b.node("MatMul", [h, w.add(f"{p}.attn.v.weight", [hidden, hidden])])
        kt = b.node("Transpose", [kk], perm=[0, 2, 1])
        s = b.node("MatMul", [q, kt])
        s = b.node("Mul", [s, b.constant(float(hidden) ** -0.5, np.float32)])
        s = b.aten("triu", s, 1)  # the causal mask: torch.triu(scores, 1)
        s = b.node("Softmax", [s], axis=-1)
        a = b.node("MatMul", [s, v])
        a = b.aten("cumsum", a, k)
        a = b.node("MatMul", [a, w.add(f"{p}.attn.o.weight", [hidden, hidden])])
        x = b.node("Add", [x, a])
        h = b.node("MatMul", [x, w.add(f"{p}.mlp.fc1.weight", [hidden, 4 * hidden])])
        h = b.aten("leaky_relu", h, k)
        h = b.node("MatMul", [h, w.add(f"{p}.mlp.fc2.weight", [4 * hidden, hidden])])
        h = b.aten("asinh", h, k)
        x = b.node("Add", [x, h])
        k += 1
    w.close()
    graph.output.append(float_input(x, [1, seq, hidden]))
    return model_of(graph)


def control(blocks):
    """Alternating If and Loop blocks, each branch or body a few plain ops around
    an ATen node: 400 blocks make 8k nodes, as a scripted torch model."""
    graph = helper.make_graph([], "torch_jit", [float_input("x", [4, 8, 8]), helper.make_tensor_value_info(
        "flag", TensorProto.BOOL, [])], [])
    b = Builder(graph, "")
    x = "x"
    for i in range(blocks):
        op = ATEN_OPS[i % 4]
        if i % 2 == 0:
            branches = []
            for side in ("then", "else"):
                g = helper.make_graph([], f"torch_jit{i}_{side}", [], [])
                sb = Builder(g, f"/If_{i}/{side}")
                y = sb.node("Relu" if side == "then" else "Neg", [x])
                for plain in PLAIN[:5]:
                    y = sb.node(plain, [y])
                y = sb.aten(op, sb.node("Sigmoid", [y]), i)
                y = sb.node("Abs", [y])
                g.output.append(float_input(y, [4, 8, 8]))
                branches.append(g)
            x = b.node("If", ["flag"], then_branch=branches[0], else_branch=branches[1])
        else:
            n = b.constant(2)
            g = helper.make_graph([], f"torch_jit{i}_body", [
                helper.make_tensor_value_info(f"i{i}", TensorProto.INT64, []),
                helper.make_tensor_value_info(f"cond{i}", TensorProto.BOOL, []),
                float_input(f"x{i}", [4, 8, 8])], [])
            sb = Builder(g, f"/Loop_{i}/body")
            c = sb.node("Identity", [f"cond{i}"])
            y = f"x{i}"
            for plain in PLAIN + PLAIN[:2]:
                y = sb.node(plain, [y])
            y = sb.aten(op, y, i)
            y = sb.node("Relu", [y])
            g.output.extend([helper.make_tensor_value_info(c, TensorProto.BOOL, []), float_input(y, [4, 8, 8])])
            x = b.node("Loop", [n, "flag", x], body=g)
        x = b.node("Relu", [b.node("Add", [x, x])])
    graph.output.append(float_input(x, [4, 8, 8]))
    return model_of(graph)


def count_nodes(graph):
    total = 0
    for n in graph.node:
        total += 1
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                total += count_nodes(a.g)
            total += sum(count_nodes(g) for g in a.graphs)
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["chain", "layers", "control"])
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--layers", type=int, default=48)
    ap.add_argument("--hidden", type=int, default=832)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--external", action="store_true")
    ap.add_argument("--blocks", type=int, default=400)
    args = ap.parse_args()
    if args.kind == "chain":
        m = chain(args.nodes)
    elif args.kind == "layers":
        m = layers(args.layers, args.hidden, args.seq, args.external, args.out)
    else:
        m = control(args.blocks)
    with open(args.out, "wb") as f:
        f.write(m.SerializeToString())
    print(f"{args.out}: {count_nodes(m.graph)} nodes, {len(m.graph.initializer)} initializers", file=sys.stderr)


if __name__ == "__main__":
    main()
