#!/usr/bin/env python3
"""Writes the bad-input corpus: one folder per input under tests/bad_inputs/, and MANIFEST.tsv.

    /usr/bin/python3 tests/bad_inputs/generate.py      (Debian's python3-onnx, 1.12)

Every file here comes from this script; run it again after changing it and commit the output.
run_bad_inputs.sh (ctest bad_inputs.corpus) reads the manifest. Its columns, tab-separated:

    name  folder  exit  output  args  regex

folder is copied to a scratch folder before each run (so the inputs' hashes can be compared
after it); args are onnx-remap's arguments with {in} (the copied folder's model.onnx), {out}
(an output in another, empty folder), {side} (an output next to the input) and {src} (the
source tree). output is `none` (nothing may be written) or `written` (exit 1: the other nodes
were rewritten and the model is written). regex must match the one error line (or, for
`written`, the report). The rule-file entries reuse tests/unit/bad_rules/.
"""
import os
import shutil
import struct

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = []


def folder(name):
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def write(name, data, filename="model.onnx"):
    path = folder(name) if filename == "model.onnx" else os.path.join(HERE, name)
    with open(os.path.join(path, filename), "wb") as f:
        f.write(data)


def row(name, exit_code, output, args, regex, dirname=None):
    ROWS.append((name, dirname or name, str(exit_code), output, args, regex))


def model(nodes, inputs=("x",), outputs=("y",), initializers=(), opsets=(("", 13),), value_infos=()):
    graph = helper.make_graph(
        list(nodes), "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        initializer=list(initializers), value_info=list(value_infos))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                          producer_name="tests/bad_inputs/generate.py")
    m.ir_version = 8
    return m


def aten(op, inputs, output, name, **attrs):
    return helper.make_node("ATen", list(inputs), [output], name=name, domain="org.pytorch.aten",
                            operator=op, **attrs)


ATEN_OPSETS = (("", 13), ("org.pytorch.aten", 1))
ONE_LINE = "onnx-remap: error: [^ ]*{name}/model.onnx: "


def good_model():
    """asinh by ATen fallback: one node the built-in rules rewrite."""
    return model([aten("asinh", ["x"], "y", "/asinh")], opsets=ATEN_OPSETS)


# --- files that are not a model ---------------------------------------------------------------
write("empty", b"")
row("empty", 3, "none", "rewrite {in} -o {out}", ONE_LINE.format(name="empty") + "empty file, not an ONNX model$")

write("not_protobuf", b"hello, this is not a model\n" * 4)
row("not_protobuf", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="not_protobuf") + "not an ONNX model \\(protobuf parse failed\\)$")

good = good_model().SerializeToString()
write("truncated", good[: len(good) * 2 // 3])
row("truncated", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="truncated") + "not an ONNX model \\(protobuf parse failed\\)$")

# A TensorProto: its packed dims (field 1, length-delimited) clash with ModelProto's ir_version (field 1,
# a varint), so protobuf refuses the bytes.
write("wrong_message", helper.make_tensor("t", TensorProto.FLOAT, [2, 2], [1, 2, 3, 4]).SerializeToString())
row("wrong_message", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="wrong_message") + "not an ONNX model \\(protobuf parse failed\\)$")

no_graph = onnx.ModelProto(ir_version=8, producer_name="x")
no_graph.opset_import.add(domain="", version=13)
write("no_graph", no_graph.SerializeToString())
row("no_graph", 3, "none", "rewrite {in} -o {out}", ONE_LINE.format(name="no_graph") + "not an ONNX model \\(no graph\\)$")

# --- graphs that break ONNX's rules -----------------------------------------------------------
cycle = model([helper.make_node("Add", ["x", "c"], ["b"], name="A"), helper.make_node("Relu", ["b"], ["c"], name="B"),
               helper.make_node("Relu", ["c"], ["y"], name="C")])
write("cycle", cycle.SerializeToString())
row("cycle", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="cycle") + "graph 'g': node 'A' \\(Add\\) reads 'c', which a later node 'B' \\(Relu\\) produces "
    "\\(a cycle, or nodes out of topological order\\)$")

dangling = model([helper.make_node("Add", ["x", "ghost"], ["y"], name="A")])
write("dangling_input", dangling.SerializeToString())
row("dangling_input", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="dangling_input") + "graph 'g': node 'A' \\(Add\\) reads 'ghost', which nothing produces$")

dup = model([helper.make_node("Relu", ["x"], ["y"], name="A"), helper.make_node("Neg", ["x"], ["y"], name="B")])
write("duplicate_output", dup.SerializeToString())
row("duplicate_output", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="duplicate_output") + "graph 'g': node 'B' \\(Neg\\) writes 'y', which node 'A' \\(Relu\\) already writes$")


# Subgraphs nested 5,000 deep: If inside If. Built as bytes (protobuf's Python and C++ parsers
# stop at 100 nested messages): a GraphProto holds one If whose then_branch is the next level.
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def leaf_graph(name):
    return helper.make_graph([helper.make_node("Identity", ["x"], [name + "_o"])], name, [],
                             [helper.make_tensor_value_info(name + "_o", TensorProto.FLOAT, None)])


DEPTH = 5000
inner = leaf_graph("leaf").SerializeToString()
for level in range(DEPTH, 0, -1):
    then_attr = helper.make_attribute("then_branch", leaf_graph("t%d" % level))
    then_attr.ClearField("g")
    then_attr = then_attr.SerializeToString() + field(6, inner)  # AttributeProto.g = 6
    else_attr = helper.make_attribute("else_branch", leaf_graph("e%d" % level)).SerializeToString()
    node = helper.make_node("If", ["c"], ["o%d" % level], name="if%d" % level).SerializeToString()
    node += field(5, then_attr) + field(5, else_attr)  # NodeProto.attribute = 5
    g = helper.make_graph([], "level%d" % level, [], [helper.make_tensor_value_info("o%d" % level, TensorProto.FLOAT, None)])
    inner = g.SerializeToString() + field(1, node)  # GraphProto.node = 1
# `inner` is now level 1's graph; the model's graph is it plus the condition input c (GraphProto.input = 11).
shell = onnx.ModelProto(ir_version=8, producer_name="tests/bad_inputs/generate.py")
shell.opset_import.add(domain="", version=13)
cond = helper.make_tensor_value_info("c", TensorProto.BOOL, []).SerializeToString()
write("nested_if_5000", shell.SerializeToString() + field(7, inner + field(11, cond)))  # ModelProto.graph = 7
row("nested_if_5000", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="nested_if_5000") + "subgraphs nested 5000 deep \\(the limit is 64\\)$")

# --- absurd sizes -----------------------------------------------------------------------------
def bare_tensor(name, data_type, dims, raw=None):
    """A TensorProto as written, dims unchecked (helper.make_tensor checks them)."""
    t = TensorProto(name=name, data_type=data_type, dims=dims)
    if raw is not None:
        t.raw_data = raw
    return t


huge = bare_tensor("w", TensorProto.FLOAT, [1 << 40])
write("huge_initializer_dims", model([helper.make_node("Add", ["x", "w"], ["y"], name="A")],
                                     initializers=[huge]).SerializeToString())
row("huge_initializer_dims", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="huge_initializer_dims") + "graph 'g': initializer 'w' declares 1099511627776 elements "
    "\\(dims \\[1099511627776\\]\\) but holds 0$")

overflow = bare_tensor("w", TensorProto.FLOAT, [1 << 40, 1 << 40])
write("overflowing_dims", model([helper.make_node("Add", ["x", "w"], ["y"], name="A")],
                                initializers=[overflow]).SerializeToString())
row("overflowing_dims", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="overflowing_dims") + "graph 'g': initializer 'w' declares dims "
    "\\[1099511627776, 1099511627776\\], over 2\\^63 elements$")

# A Constant feeding a scalar argument (celu's alpha) that claims 2^31 float64 elements in 8 bytes:
# a reader that trusted the dims would allocate 16 GiB.
alpha = bare_tensor("alpha", TensorProto.DOUBLE, [1 << 31], struct.pack("<d", 1.0))
write("huge_constant_argument", model(
    [helper.make_node("Constant", [], ["alpha"], name="/alpha", value=alpha),
     aten("celu", ["x", "alpha"], "y", "/celu")], opsets=ATEN_OPSETS).SerializeToString())
row("huge_constant_argument", 3, "none", "rewrite {in} -o {out}",
    ONE_LINE.format(name="huge_constant_argument") + "graph 'g': node '/alpha' \\(Constant\\) attribute 'value' "
    "declares 2147483648 elements \\(dims \\[2147483648\\]\\) but holds 1$")

# --- element types ONNX 1.12 does not know (newer ones, or none) ------------------------------
# Lowering the Add below opset 14 checks its input types against the older schema; type 75 has no
# name there (ONNX's DataTypeUtils threw std::invalid_argument, which aborted onnx-remap).
unknown = model([helper.make_node("Add", ["x", "x"], ["y"], name="A")], opsets=(("", 14),))
unknown.graph.input[0].type.tensor_type.elem_type = 75
write("unknown_elem_type_lowered", unknown.SerializeToString())
row("unknown_elem_type_lowered", 5, "none", "convert {in} -o {out} --opset 13",
    ONE_LINE.format(name="unknown_elem_type_lowered") + "cannot convert from opset 14 to 13: 1 node cannot: 'A' \\(Add\\): "
    "Add input 'x' has element type 75, which ONNX 1.12.0 does not know, so its opset 13 form "
    "cannot be checked$")

# --- external data ----------------------------------------------------------------------------
def external_model(name, location, offset=None, length=None, data=None, data_name="weights.bin"):
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 3], [0.0] * 6)
    w.ClearField("float_data")
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            w.external_data.add(key=key, value=str(value))
    write(name, model([helper.make_node("Add", ["x", "w"], ["y"], name="A")], initializers=[w]).SerializeToString())
    if data is not None:
        write(name, data, data_name)


WEIGHTS = struct.pack("<6f", *range(6))  # 24 bytes: exactly w's data
# Each external-data entry runs twice: output in another folder (the saver would copy the data
# file there) and next to the input (no copy; only the loader and checker would read it).
def external_rows(name, regex):
    row(name + ".other_folder", 3, "none", "rewrite {in} -o {out}", ONE_LINE.format(name=name) + regex, name)
    row(name + ".same_folder", 3, "none", "rewrite {in} -o {side}", ONE_LINE.format(name=name) + regex, name)


external_model("external_missing_file", "weights.bin")
external_rows("external_missing_file", "initializer 'w': external data file weights.bin does not exist$")
external_model("external_offset_beyond", "weights.bin", offset=4096, data=WEIGHTS)
external_rows("external_offset_beyond", "initializer 'w': external data \\(offset 4096, 24 bytes\\) ends beyond "
              "the end of weights.bin \\(24 bytes\\)$")
external_model("external_length_beyond", "weights.bin", offset=8, length=24, data=WEIGHTS)
external_rows("external_length_beyond", "initializer 'w': external data \\(offset 8, 24 bytes\\) ends beyond "
              "the end of weights.bin \\(24 bytes\\)$")
# run_bad_inputs.sh puts a valid 24-byte outside.bin next to the copied folder: were the path
# followed, it would load.
external_model("external_parent_escape", "../outside.bin")
external_rows("external_parent_escape", "initializer 'w': external data location '../outside.bin' is not a "
              "relative path inside the model's folder; refused$")
external_model("external_absolute", "/etc/passwd", length=24)
external_rows("external_absolute", "initializer 'w': external data location '/etc/passwd' is not a relative path "
              "inside the model's folder; refused$")
external_model("external_symlink_outside", "weights.bin")
os.symlink("../outside.bin", os.path.join(HERE, "external_symlink_outside", "weights.bin"))
external_rows("external_symlink_outside", "initializer 'w': external data file weights.bin is a symbolic link "
              "to outside the model's folder; refused$")

# --- ATen nodes no rule can take: left with the reason, the other node still rewritten ---------
LEFT = "1 rewritten, 1 left.*left +1 x org.pytorch.aten::ATen {op}: .*{why}"
write("aten_wrong_arity", model([aten("asinh", ["x"], "a", "/good"), aten("asinh", ["a", "x"], "y", "/bad")],
                                opsets=ATEN_OPSETS).SerializeToString())
row("aten_wrong_arity", 1, "written", "rewrite {in} -o {out}",
    LEFT.format(op="asinh", why="the node has 2 inputs but the signature takes 1"))
write("aten_scalar_not_constant", model(
    [aten("asinh", ["x"], "a", "/good"), aten("celu", ["a", "alpha"], "y", "/bad")], inputs=("x", "alpha"),
    opsets=ATEN_OPSETS).SerializeToString())
row("aten_scalar_not_constant", 1, "written", "rewrite {in} -o {out}",
    LEFT.format(op="celu", why="alpha.*not a constant"))
write("aten_unknown_overload", model(
    [aten("asinh", ["x"], "a", "/good"), aten("frobnicate", ["a"], "y", "/bad", overload_name="Tensor_out")],
    opsets=ATEN_OPSETS).SerializeToString())
row("aten_unknown_overload", 1, "written", "rewrite {in} -o {out}",
    LEFT.format(op="frobnicate", why="no rule for aten::frobnicate"))

# --- rule files: file:line:col: error: (exit 4); the model is a good one -----------------------
write("good_model", good_model().SerializeToString())
with open(os.path.join(HERE, "good_model", "syntax_error.textproto"), "w") as f:
    f.write('rule {\n  id: "aten-x"\n  match { aten: "x" \n}\n')
RULE = "^[^ ]*{file}:{pos}: error: {what}"
row("rules_syntax_error", 4, "none", "rewrite {in} -o {out} --rules {dir}/syntax_error.textproto",
    RULE.format(file="good_model/syntax_error.textproto", pos="5:1", what="Expected identifier"), "good_model")
for rule_file, pos, what in (
        ("unknown_field", "6:11", 'Message type "remap.rulefile.Rule" has no field named "sigature"'),
        ("onnx_text_error", "8:31", "replace: ONNX text: Expected character \\) not found"),
        ("undefined_value", "9:28", "replace: 'tmp' is neither an argument of the signature nor an output")):
    row("rules_" + rule_file, 4, "none", "rewrite {in} -o {out} --rules {src}/tests/unit/bad_rules/%s.textproto" % rule_file,
        RULE.format(file="tests/unit/bad_rules/%s.textproto" % rule_file, pos=pos, what=what), "good_model")

with open(os.path.join(HERE, "MANIFEST.tsv"), "w") as f:
    f.write("# Written by generate.py. name\tfolder\texit\toutput\targs\tregex\n")
    for r in ROWS:
        f.write("\t".join(r) + "\n")
print("%d entries in %d folders" % (len(ROWS), len({r[1] for r in ROWS})))
