#!/usr/bin/python3
"""The script a user writes instead of onnx-remap (the issue 11 baseline):
python3 rewrite.py IN.onnx OUT.onnx. Same rewrites as onnx-remap's rules:
asinh->Asinh, triu->Trilu(upper), cumsum->CumSum (float32 summed in float64 as
torch does), leaky_relu->LeakyRelu(alpha); Constants left unused are dropped."""
import os, shutil, sys
import onnx
from onnx import helper, numpy_helper, TensorProto

src, dst = sys.argv[1], sys.argv[2]
model = onnx.load(src, load_external_data=False)  # weights stay where they are
consts, used = {}, set()

def rewrite(graph):
    nodes = []
    for n in graph.node:
        for a in n.attribute:
            for g in ([a.g] if a.type == onnx.AttributeProto.GRAPH else a.graphs):
                rewrite(g)
        if n.op_type == "Constant":
            consts[n.output[0]] = n
        op = dict((a.name, a.s.decode()) for a in n.attribute).get("operator") if n.op_type == "ATen" else None
        x, y = (n.input[0] if n.input else None), n.output[0]
        if op == "asinh":
            nodes.append(helper.make_node("Asinh", [x], [y], n.name))
        elif op == "triu":
            nodes.append(helper.make_node("Trilu", [x, n.input[1]], [y], n.name, upper=1))
        elif op == "cumsum":
            nodes += [helper.make_node("Cast", [x], [y + "_f64"], n.name + "_in", to=TensorProto.DOUBLE),
                      helper.make_node("CumSum", [y + "_f64", n.input[1]], [y + "_sum"], n.name),
                      helper.make_node("Cast", [y + "_sum"], [y], n.name + "_out", to=TensorProto.FLOAT)]
        elif op == "leaky_relu":
            alpha = float(numpy_helper.to_array(consts[n.input[1]].attribute[0].t))
            nodes.append(helper.make_node("LeakyRelu", [x], [y], n.name, alpha=alpha))
        else:
            nodes.append(n)
    graph.ClearField("node")
    graph.node.extend(nodes)
    used.update(i for n in nodes for i in n.input)
    used.update(o.name for o in graph.output)

def drop_unused_constants(graph):
    keep = [n for n in graph.node if n.op_type != "Constant" or n.output[0] in used]
    graph.ClearField("node")
    graph.node.extend(keep)
    for n in graph.node:
        for a in n.attribute:
            for g in ([a.g] if a.type == onnx.AttributeProto.GRAPH else a.graphs):
                drop_unused_constants(g)

rewrite(model.graph)
drop_unused_constants(model.graph)
opsets = [o for o in model.opset_import if o.domain != "org.pytorch.aten"]
del model.opset_import[:]
model.opset_import.extend(opsets)
onnx.save(model, dst)
for t in model.graph.initializer:  # external data files go along with the model
    loc = dict((e.key, e.value) for e in t.external_data).get("location")
    if loc and not os.path.exists(os.path.join(os.path.dirname(dst), loc)):
        shutil.copyfile(os.path.join(os.path.dirname(src), loc), os.path.join(os.path.dirname(dst), loc))
