#include "model_functions.h"

#include <google/protobuf/unknown_field_set.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "aoe/sdk/error.h"
#include "model_file.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;
using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;
using Key = std::pair<std::string, std::string>;  // domain, name

// Calls nested n deep, each calling the next twice, inline to 2^n nodes: past this many,
// ten times the largest exported graphs, the model is refused before memory runs out.
constexpr int64_t kMostInlinedNodes = int64_t{1} << 20;

// FunctionProto's attribute_proto (field 11, IR 9): the defaults of its
// attributes, which ONNX 1.12's message keeps among its unknown fields.
std::map<std::string, onnx::AttributeProto> defaults_of(const onnx::FunctionProto& fn) {
  std::map<std::string, onnx::AttributeProto> out;
  const auto& unknown = fn.GetReflection()->GetUnknownFields(fn);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const auto& field = unknown.field(i);
    if (field.number() != 11 || field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) continue;
    onnx::AttributeProto a;
    if (a.ParseFromString(field.length_delimited())) out[a.name()] = a;
  }
  return out;
}

std::string text(const Key& key) { return (key.first.empty() ? "" : key.first + ".") + key.second; }

class Inliner {
 public:
  Inliner(const onnx::ModelProto& model, const fs::path& path) : path_(path) {
    for (const auto& fn : model.functions()) {
      const Key key{fn.domain(), fn.name()};
      if (!functions_.emplace(key, &fn).second)
        throw Error(StatusCode::invalid_argument, "ONNX model " + quoted(path) + " defines function '" + text(key) +
                                                      "' twice (overloads are not read); export it again");
      defaults_[key] = defaults_of(fn);
    }
  }

  // The nodes with every call of a function replaced by its body, subgraphs too.
  void inline_nodes(Nodes& nodes) {
    Nodes out;
    for (auto& node : nodes) {
      for (auto& a : *node.mutable_attribute()) {
        if (a.has_g()) inline_nodes(*a.mutable_g()->mutable_node());
        for (auto& g : *a.mutable_graphs()) inline_nodes(*g.mutable_node());
      }
      const auto it = functions_.find({node.domain(), node.op_type()});
      if (it == functions_.end()) *out.Add() = std::move(node);
      else expand(node, *it->second, out);
    }
    nodes.Swap(&out);
  }

  int64_t calls() const { return calls_; }

 private:
  void expand(const onnx::NodeProto& call, const onnx::FunctionProto& fn, Nodes& out) {
    const Key key{fn.domain(), fn.name()};
    if (!open_.insert(key).second)
      throw Error(StatusCode::invalid_argument,
                  "ONNX model " + quoted(path_) + ": function '" + text(key) + "' calls itself; it cannot be inlined");
    ++calls_;
    const std::string scope =
        (call.name().empty() ? call.op_type() + "_" + std::to_string(calls_) : call.name()) + "/";
    // The body's names: its inputs and outputs the call's, the rest under the call's name.
    std::map<std::string, std::string> names;
    for (int i = 0; i < fn.input_size(); ++i) names[fn.input(i)] = i < call.input_size() ? call.input(i) : "";
    for (int i = 0; i < fn.output_size(); ++i)
      names[fn.output(i)] = i < call.output_size() && !call.output(i).empty() ? call.output(i) : scope + fn.output(i);
    const auto rename = [&](const std::string& name) {
      if (name.empty()) return name;
      const auto it = names.find(name);
      return it != names.end() ? it->second : names[name] = scope + name;
    };
    std::map<std::string, const onnx::AttributeProto*> given;
    for (const auto& a : call.attribute()) given[a.name()] = &a;
    const auto& defaults = defaults_.at(key);
    Nodes body;
    for (const auto& proto : fn.node()) {
      if (++inlined_nodes_ > kMostInlinedNodes)
        throw Error(StatusCode::invalid_argument, "ONNX model " + quoted(path_) + ": inlining its functions gives over " +
                                                      std::to_string(kMostInlinedNodes) + " nodes (function '" +
                                                      text(key) + "'); export the model without them");
      onnx::NodeProto node = proto;
      node.set_name(scope + (proto.name().empty() ? proto.op_type() : proto.name()));
      for (auto& in : *node.mutable_input()) in = rename(in);
      for (auto& o : *node.mutable_output()) o = rename(o);
      google::protobuf::RepeatedPtrField<onnx::AttributeProto> attrs;
      for (const auto& a : proto.attribute()) {
        if (a.ref_attr_name().empty()) {
          *attrs.Add() = a;
          rename_outer(*attrs.rbegin(), names);
          continue;
        }
        // A reference: the call's value, else the function's default, else unset.
        const onnx::AttributeProto* value = given.count(a.ref_attr_name()) ? given.at(a.ref_attr_name()) : nullptr;
        if (!value && defaults.count(a.ref_attr_name())) value = &defaults.at(a.ref_attr_name());
        if (!value) continue;
        auto* copy = attrs.Add();
        *copy = *value;
        copy->set_name(a.name());
      }
      node.mutable_attribute()->Swap(&attrs);
      *body.Add() = std::move(node);
    }
    inline_nodes(body);  // calls within the function
    for (auto& node : body) *out.Add() = std::move(node);
    open_.erase(key);
  }

  // A subgraph in the body reads the body's values by their names there.
  static void rename_outer(onnx::AttributeProto& a, const std::map<std::string, std::string>& names) {
    const auto graph = [&](onnx::GraphProto& g) {
      for (auto& node : *g.mutable_node()) {
        for (auto& in : *node.mutable_input())
          if (const auto it = names.find(in); it != names.end()) in = it->second;
        for (auto& sub : *node.mutable_attribute()) rename_outer(sub, names);
      }
    };
    if (a.has_g()) graph(*a.mutable_g());
    for (auto& g : *a.mutable_graphs()) graph(g);
  }

  const fs::path& path_;
  std::map<Key, const onnx::FunctionProto*> functions_;
  std::map<Key, std::map<std::string, onnx::AttributeProto>> defaults_;
  std::set<Key> open_;
  int64_t calls_ = 0;
  int64_t inlined_nodes_ = 0;
};

}  // namespace

int64_t inline_model_functions(onnx::ModelProto& model, const fs::path& path) {
  if (model.functions_size() == 0) return 0;
  Inliner inliner(model, path);
  inliner.inline_nodes(*model.mutable_graph()->mutable_node());
  model.clear_functions();
  return inliner.calls();
}

}  // namespace aoe::host
