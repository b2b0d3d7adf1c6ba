#include "match/replacement_memo.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "match/constant_reader.h"
#include "match/tensor_value.h"
#include "model/type_key.h"

namespace remap {

namespace {

constexpr int kMaxInputs = 64;  // the key's input bit sets

// A key's bytes, gathered on the stack and copied out once: a key is a few
// dozen small fields, and a string append per field (a call with its own
// capacity check each) was a third of a key's cost.
class KeyBytes {
 public:
  explicit KeyBytes(std::string* out) : out_(out) {}
  KeyBytes(const KeyBytes&) = delete;
  KeyBytes& operator=(const KeyBytes&) = delete;

  void Append(const void* data, size_t n) {
    if (used_ + n > sizeof buffer_) {
      Spill();
      out_->append(static_cast<const char*>(data), n);
      return;
    }
    std::memcpy(buffer_ + used_, data, n);
    used_ += n;
  }
  // The string holds what was written, and only that.
  void Finish() { Spill(); }

 private:
  // A long key (a string argument, a recorded type's bytes) goes on in the string.
  void Spill() {
    out_->append(buffer_, used_);
    used_ = 0;
  }
  std::string* out_;
  char buffer_[256];
  size_t used_ = 0;
};

template <typename T>
void Put(KeyBytes* key, const T& v) {
  key->Append(&v, sizeof v);
}
void PutString(KeyBytes* key, const std::string& s) {
  Put<uint64_t>(key, s.size());
  key->Append(s.data(), s.size());
}

int InputPosition(const onnx::NodeProto& node, const std::string& name) {
  for (int j = 0; j < node.input_size(); ++j) {
    if (node.input(j) == name) return j;
  }
  return -1;
}

// The first position in `names` holding names[j]: which names are the same value.
template <typename Names>
int32_t FirstOf(const Names& names, int j) {
  for (int k = 0; k < j; ++k) {
    if (names.Get(k) == names.Get(j)) return k;
  }
  return j;
}

bool PutValue(KeyBytes* key, const Value& v, const onnx::NodeProto& node, TypeOracle* oracle, uint64_t* typed) {
  Put<uint8_t>(key, static_cast<uint8_t>(v.kind));
  Put<int32_t>(key, v.tensor_elem_type);
  switch (v.kind) {
    case Value::Kind::kNone: return true;
    case Value::Kind::kBool: Put(key, v.b); return true;
    case Value::Kind::kInt: Put(key, v.i); return true;
    case Value::Kind::kFloat: Put(key, v.f); return true;  // its bits: -0.0 and NaNs stay apart
    case Value::Kind::kString: PutString(key, v.s); return true;
    case Value::Kind::kList:
      Put<uint64_t>(key, v.list.size());
      for (const Value& item : v.list) {
        if (!PutValue(key, item, node, oracle, typed)) return false;
      }
      return true;
    case Value::Kind::kTensor: {
      // A tensor from elsewhere (a list producer's input) is not the node's to rename.
      const int j = InputPosition(node, v.s);
      if (j < 0) return false;
      Put<int32_t>(key, j);
      Put(key, v.elem_type);
      Put(key, v.rank);
      Put<uint64_t>(key, v.dims.size());
      for (int64_t d : v.dims) Put(key, d);
      // The whole type, dim names included: what ONNX's inference reads.
      // As known now (binding typed the tensor): a key infers nothing.
      const onnx::TypeProto* type = oracle->KnownTypeProto(v.s);
      if (!type) {
        Put<uint8_t>(key, 0);
      } else if (oracle->Interned(type)) {
        Put<uint8_t>(key, 1);  // one object per distinct type: the object names it
        Put(key, type);
      } else {
        // A type the model records: its key, equal exactly when its bytes
        // are. (Equal to an interned one, it only misses; a key never mixes
        // the two up.)
        Put<uint8_t>(key, 2);
        std::string bytes;
        AppendTypeKey(*type, &bytes);
        PutString(key, bytes);
      }
      *typed |= uint64_t{1} << j;
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<ReplacementMemo::Key> ReplacementMemo::KeyOf(const onnx::NodeProto& node, const Rule& rule,
                                                           const Binding& binding, const GraphIndex& index,
                                                           TypeOracle* oracle) {
  if (!oracle || !rule.producers.empty() || node.input_size() > kMaxInputs) return std::nullopt;
  Key key;
  KeyBytes bytes(&key.bytes);
  Put(&bytes, &rule);
  Put<int32_t>(&bytes, node.input_size());
  for (int j = 0; j < node.input_size(); ++j) {
    if (node.input(j).empty()) {
      Put<int32_t>(&bytes, -1);
      continue;
    }
    Put<int32_t>(&bytes, FirstOf(node.input(), j));
    const Producer p = index.ProducerOf(node.input(j));
    if (p.kind == Producer::Kind::kInitializer || (p.kind == Producer::Kind::kNode && p.node && IsConstantProducer(*p.node)))
      key.constant_inputs |= uint64_t{1} << j;
  }
  Put(&bytes, key.constant_inputs);
  Put<int32_t>(&bytes, node.output_size());
  for (int j = 0; j < node.output_size(); ++j)
    Put<int32_t>(&bytes, node.output(j).empty() ? -1 : FirstOf(node.output(), j));
  for (const BoundArgument& b : binding.args()) {
    Put(&bytes, b.arg);
    if (!PutValue(&bytes, b.value, node, oracle, &key.typed_inputs)) return std::nullopt;
    int32_t at = -1;
    if (!b.input.empty() && (at = InputPosition(node, b.input)) < 0) return std::nullopt;
    Put(&bytes, at);
    PutString(&bytes, b.not_constant);
  }
  Put(&bytes, key.typed_inputs);
  bytes.Finish();
  return key;
}

const ReplacementMemo::Entry* ReplacementMemo::Find(const Key& key) const {
  auto it = entries_.find(key.bytes);
  return it == entries_.end() ? nullptr : &it->second;
}

namespace {

// Node keys are looked up before any rule is bound: past this many lookups,
// a model whose nodes are mostly unlike one another stops paying for them.
constexpr size_t kNodeKeyTrial = 4096;

void PutMessage(KeyBytes* key, const google::protobuf::MessageLite& m) {
  std::string bytes;
  m.AppendToString(&bytes);
  PutString(key, bytes);
}

// A Constant's tensor as torch writes it (type, dims and raw bytes, nothing
// else that a reader could take the data from) keyed by those fields; any
// other attribute by its serialized bytes, which hold everything.
void PutConstantAttribute(KeyBytes* key, const onnx::AttributeProto& attr) {
  const onnx::TensorProto& t = attr.t();
  if (attr.type() == onnx::AttributeProto::TENSOR && attr.has_t() && attr.ref_attr_name().empty() &&
      t.has_raw_data() && t.data_location() == onnx::TensorProto::DEFAULT && !t.has_segment() &&
      t.float_data_size() == 0 && t.int32_data_size() == 0 && t.string_data_size() == 0 &&
      t.int64_data_size() == 0 && t.double_data_size() == 0 && t.uint64_data_size() == 0 &&
      t.external_data_size() == 0) {
    Put<uint8_t>(key, 1);
    PutString(key, attr.name());
    Put<int32_t>(key, t.data_type());
    Put<int32_t>(key, t.dims_size());
    for (int64_t d : t.dims()) Put(key, d);
    PutString(key, t.raw_data());
    return;
  }
  Put<uint8_t>(key, 0);
  PutMessage(key, attr);
}

// An ATen fallback's `operator` (1) or `overload_name` (2) holding the
// string its node form holds already (ClassifyNode read it): the key need not
// hold it twice, only which of the two the attribute is. 0 for any other.
uint8_t InForm(const onnx::AttributeProto& attr, const NodeForm& form) {
  if (form.kind != NodeForm::Kind::kAtenFallback || attr.type() != onnx::AttributeProto::STRING ||
      !attr.ref_attr_name().empty())
    return 0;
  const std::string_view name = attr.name();
  if (name == "operator" && attr.s() == form.aten_operator) return 1;
  if (name == "overload_name" && attr.s() == form.overload) return 2;
  return 0;
}

}  // namespace

std::optional<ReplacementMemo::NodeKey> ReplacementMemo::NodeKeyOf(const onnx::NodeProto& node, const NodeForm& form,
                                                                   const GraphIndex& index, TypeOracle* oracle) const {
  if (!oracle || node.input_size() > kMaxInputs) return std::nullopt;
  if (node_lookups_ >= kNodeKeyTrial && node_hits_ * 4 < node_lookups_) return std::nullopt;
  // Inputs first: the ones a key cannot hold end it before anything is typed.
  // Each input's producer: null for one to type (a node's output other than
  // a Constant's, a graph input, a plain node left as bytes).
  const onnx::NodeProto* constants[kMaxInputs];
  for (int j = 0; j < node.input_size(); ++j) {
    constants[j] = nullptr;
    if (node.input(j).empty()) continue;
    const Producer p = index.ProducerOf(node.input(j));
    if (p.kind == Producer::Kind::kInitializer) return std::nullopt;
    if (p.kind == Producer::Kind::kNode && p.node) {
      if (IsConstantProducer(*p.node)) {
        constants[j] = p.node;
      } else if (IsListProducer(*p.node)) {
        return std::nullopt;
      }
    }
  }
  NodeKey key;
  KeyBytes bytes(&key.bytes);
  Put<uint8_t>(&bytes, static_cast<uint8_t>(form.kind));
  PutString(&bytes, node.domain());
  PutString(&bytes, node.op_type());
  PutString(&bytes, form.aten_operator);
  PutString(&bytes, form.overload);
  Put<int32_t>(&bytes, node.attribute_size());
  for (const auto& attr : node.attribute()) {
    const uint8_t in_form = InForm(attr, form);
    Put(&bytes, in_form);
    if (!in_form) PutMessage(&bytes, attr);
  }
  Put<int32_t>(&bytes, node.output_size());
  for (int j = 0; j < node.output_size(); ++j) {
    const std::string& out = node.output(j);
    Put<int32_t>(&bytes, out.empty() ? -1 : FirstOf(node.output(), j));
    Put<uint8_t>(&bytes, !out.empty() && index.Uses(out) > 0);
  }
  Put<int32_t>(&bytes, node.input_size());
  uint64_t typed = 0;
  for (int j = 0; j < node.input_size(); ++j) {
    const std::string& in = node.input(j);
    if (in.empty()) {
      Put<int32_t>(&bytes, -1);
      continue;
    }
    const int32_t first = FirstOf(node.input(), j);
    Put<int32_t>(&bytes, first);
    if (first != j) continue;  // the same value as an earlier input
    if (const onnx::NodeProto* constant = constants[j]) {
      // Its value whole: what binding reads of it, and what typing the replacement may read.
      Put<uint8_t>(&bytes, 1);
      PutString(&bytes, constant->domain());
      Put<int32_t>(&bytes, constant->attribute_size());
      for (const auto& attr : constant->attribute()) PutConstantAttribute(&bytes, attr);
      continue;
    }
    // Typed as binding types a tensor argument, and keyed as Key keys it.
    Put<uint8_t>(&bytes, 2);
    uint64_t ignored = 0;
    if (!PutValue(&bytes, TensorValueOf(index, in), node, oracle, &ignored)) return std::nullopt;
    typed |= uint64_t{1} << j;
  }
  bytes.Finish();
  key.other_inputs = typed;
  return key;
}

const ReplacementMemo::NodeEntry* ReplacementMemo::FindNode(const NodeKey& key) {
  ++node_lookups_;
  auto it = node_entries_.find(key.bytes);
  if (it == node_entries_.end()) return nullptr;
  ++node_hits_;
  return &it->second;
}

void ReplacementMemo::StoreNode(NodeKey key, const Entry* entry, const Rule& rule, uint64_t typed_inputs) {
  if (!entry || node_entries_.size() >= max_entries_) return;
  // An input the node key types but the match did not read as a tensor: the
  // key may not hold what the match read of it.
  if ((key.other_inputs & ~typed_inputs) != 0) return;
  node_entries_.emplace(std::move(key.bytes), NodeEntry{entry, &rule});
}

const ReplacementMemo::Entry* ReplacementMemo::Store(Key key, const onnx::NodeProto& node, const Alternative& alternative,
                                                    const std::vector<onnx::NodeProto>& nodes, const EmitRecord& record,
                                                    TypeOracle::ReplacementTyping typing,
                                                    std::vector<CandidateOutcome> outcomes) {
  if (!record.replayable || entries_.size() >= max_entries_) return nullptr;
  // Each name of the replacement, by where it came from. Fresh names first:
  // they are new, so no input or output of the node has one of them.
  std::unordered_map<std::string_view, NameRef> refs;
  for (size_t k = 0; k < record.fresh.size(); ++k)
    refs.emplace(record.fresh[k].name, NameRef{NameRef::Kind::kFresh, static_cast<uint32_t>(k)});
  for (int j = 0; j < node.output_size(); ++j) {
    if (!node.output(j).empty()) refs.emplace(node.output(j), NameRef{NameRef::Kind::kOutput, static_cast<uint32_t>(j)});
  }
  for (int j = 0; j < node.input_size(); ++j) {
    if (!node.input(j).empty()) refs.emplace(node.input(j), NameRef{NameRef::Kind::kInput, static_cast<uint32_t>(j)});
  }
  Entry entry;
  auto ref = [&](const std::string& name, NameRef* out) {
    if (name.empty()) {
      *out = NameRef{};
      return true;
    }
    auto it = refs.find(name);
    if (it == refs.end()) return false;
    *out = it->second;
    return true;
  };
  for (const auto& n : nodes) {
    NameRef r;
    if (!ref(n.name(), &r) || r.kind != NameRef::Kind::kFresh || !record.fresh[r.index].node_name) return nullptr;
    entry.names.push_back(r);
    for (const auto& in : n.input()) {
      if (!ref(in, &r)) return nullptr;
      // An input read as a value of the node: its type must be in the key,
      // and no constant's data may have typed the replacement.
      if (r.kind == NameRef::Kind::kInput &&
          (!(key.typed_inputs >> r.index & 1) || (key.constant_inputs >> r.index & 1)))
        return nullptr;
      entry.names.push_back(r);
    }
    for (const auto& o : n.output()) {
      if (!ref(o, &r) || r.kind == NameRef::Kind::kInput) return nullptr;
      entry.names.push_back(r);
    }
  }
  entry.alternative = &alternative;
  entry.fresh = record.fresh;
  for (auto& f : entry.fresh) f.name.clear();
  entry.nodes = nodes;
  entry.typing = std::move(typing);
  entry.outcomes = std::move(outcomes);
  return &entries_.emplace(std::move(key.bytes), std::move(entry)).first->second;
}

void ReplacementMemo::Replay(const Entry& entry, const onnx::NodeProto& node, const Rule& rule, GraphIndex* index,
                             TypeOracle* oracle, std::vector<onnx::NodeProto>* out) const {
  // The base the emitter names from (EmitReplacement).
  const std::string base = node.name().empty() ? rule.id : node.name();
  std::vector<std::string> fresh;
  fresh.reserve(entry.fresh.size());
  for (const FreshNameRequest& r : entry.fresh)
    fresh.push_back(r.node_name ? index->FreshNodeName(base + r.suffix) : index->FreshValueName(base + r.suffix));
  static const std::string kEmpty;
  auto name_of = [&](const NameRef& r) -> const std::string& {
    switch (r.kind) {
      case NameRef::Kind::kFresh: return fresh[r.index];
      case NameRef::Kind::kInput: return node.input(static_cast<int>(r.index));
      case NameRef::Kind::kOutput: return node.output(static_cast<int>(r.index));
      case NameRef::Kind::kEmpty: break;
    }
    return kEmpty;
  };
  out->clear();
  out->reserve(entry.nodes.size());
  size_t k = 0;
  for (const onnx::NodeProto& n : entry.nodes) {
    onnx::NodeProto& m = out->emplace_back();
    // Field by field (every field of ONNX 1.12's NodeProto), each name
    // written once: a whole-node copy wrote every name twice, through
    // protobuf's generic merge.
    m.set_name(name_of(entry.names[k++]));
    m.mutable_input()->Reserve(n.input_size());
    for (int j = 0; j < n.input_size(); ++j) m.add_input(name_of(entry.names[k++]));
    m.mutable_output()->Reserve(n.output_size());
    for (int j = 0; j < n.output_size(); ++j) m.add_output(name_of(entry.names[k++]));
    if (n.has_op_type()) m.set_op_type(n.op_type());
    if (n.has_domain()) m.set_domain(n.domain());
    if (n.attribute_size() > 0) *m.mutable_attribute() = n.attribute();
    if (n.has_doc_string()) m.set_doc_string(n.doc_string());
    if (!n.unknown_fields().empty()) m.mutable_unknown_fields()->MergeFrom(n.unknown_fields());
  }
  oracle->ApplyTyping(*out, entry.typing);
}

}  // namespace remap
