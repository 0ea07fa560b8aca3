#include "codec/protobuf/schema_pool.hpp"

#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "codec/protobuf/builtin_files.hpp"
#include "util/text.hpp"

namespace krow::pb {

namespace gpb = google::protobuf;

namespace {

// Keeps the parser's first error, with its (zero-based) position.
class ParseErrors final : public gpb::io::ErrorCollector {
 public:
  void AddError(int line, gpb::io::ColumnNumber column, const std::string& message) override {
    if (!first_.empty()) return;
    first_ = std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  bool any() const { return !first_.empty(); }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// Keeps the pool's first link error.
class LinkErrors final : public gpb::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& filename, const std::string& element_name, const gpb::Message*,
                ErrorLocation, const std::string& message) override {
    if (!first_.empty()) return;
    first_ = filename + ": " + (element_name.empty() ? "" : element_name + ": ") + message;
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// The other form a registry may hand back: a serialized FileDescriptorProto in base64, as
// Confluent's Python and Go serializers register it and registries that keep schemas as
// given (Apicurio) serve it. A .proto text is never valid base64 (it has spaces, `;` or
// `{`), so the two cannot be confused.
std::optional<gpb::FileDescriptorProto> parse_descriptor(const std::string& name, std::string_view text) {
  const auto bytes = decode_base64(text);
  if (!bytes || bytes->empty()) return std::nullopt;
  gpb::FileDescriptorProto file;
  if (!file.ParseFromString(*bytes))
    throw std::invalid_argument(name + ": base64 schema is not a serialized FileDescriptorProto");
  file.set_name(name);
  return file;
}

gpb::FileDescriptorProto parse_proto(const std::string& name, std::string_view text) {
  if (text.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument(name + ": schema text too large");
  }
  if (auto file = parse_descriptor(name, text)) return *std::move(file);
  gpb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  ParseErrors errors;
  gpb::io::Tokenizer tokenizer(&input, &errors);
  gpb::compiler::Parser parser;
  parser.RecordErrorsTo(&errors);
  gpb::FileDescriptorProto file;
  const bool ok = parser.Parse(&tokenizer, &file);
  if (errors.any()) throw std::invalid_argument(name + ":" + errors.first());
  if (!ok) throw std::invalid_argument(name + ": invalid .proto text");
  file.set_name(name);
  return file;
}

// One build: walks the import graph depth first, so that every file is linked after the
// files it imports.
class PoolBuilder {
 public:
  explicit PoolBuilder(gpb::DescriptorPool& pool) : pool_(pool) {}

  // Indexes every reference of the tree by name; the first schema given a name keeps it.
  void index_references(const ResolvedSchema& schema, int depth = 0) {
    if (depth > kMaxDepth) throw std::invalid_argument("schema references nest deeper than 64 levels");
    for (const ResolvedSchema::Reference& ref : schema.references) {
      if (ref.schema == nullptr) throw std::invalid_argument("reference \"" + ref.name + "\" has no schema");
      if (by_name_.emplace(ref.name, ref.schema.get()).second) index_references(*ref.schema, depth + 1);
    }
  }

  const gpb::FileDescriptor* build_text(const std::string& name, std::string_view text, const ResolvedSchema* owner) {
    gpb::FileDescriptorProto file = parse_proto(name, text);
    return build(file, owner);
  }

  // Makes sure the file imported as `name` by `owner`'s text (null for built-in files) is
  // in the pool.
  void require(const std::string& name, const ResolvedSchema* owner, const std::string& importer) {
    if (done_.contains(name)) return;
    if (active_.contains(name)) throw std::invalid_argument(importer + ": import cycle through \"" + name + "\"");
    gpb::FileDescriptorProto linked;
    if (linked_file_preferred(name) && copy_linked_file(name, linked)) {
      build(linked, nullptr);
      return;
    }
    if (const ResolvedSchema* ref = find_reference(name, owner)) {
      build_text(name, ref->text, ref);
      return;
    }
    if (copy_linked_file(name, linked)) {
      build(linked, nullptr);
      return;
    }
    if (const std::string_view text = confluent_file_text(name); !text.empty()) {
      build_text(name, text, nullptr);
      return;
    }
    throw std::invalid_argument(importer + ": import \"" + name + "\" is neither a reference of the schema nor a built-in file");
  }

 private:
  static constexpr int kMaxDepth = 64;

  const ResolvedSchema* find_reference(const std::string& name, const ResolvedSchema* owner) const {
    if (owner != nullptr) {
      for (const ResolvedSchema::Reference& ref : owner->references) {
        if (ref.name == name) return ref.schema.get();
      }
    }
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }

  const gpb::FileDescriptor* build(const gpb::FileDescriptorProto& file, const ResolvedSchema* owner) {
    if (active_.size() > kMaxDepth) throw std::invalid_argument(file.name() + ": imports nest deeper than 64 levels");
    active_.insert(file.name());
    for (const std::string& dependency : file.dependency()) require(dependency, owner, file.name());
    active_.erase(file.name());
    LinkErrors errors;
    const gpb::FileDescriptor* built = pool_.BuildFileCollectingErrors(file, &errors);
    if (built == nullptr) {
      throw std::invalid_argument(errors.first().empty() ? file.name() + ": does not link" : errors.first());
    }
    done_.insert(file.name());
    return built;
  }

  gpb::DescriptorPool& pool_;
  std::unordered_map<std::string, const ResolvedSchema*> by_name_;  // every reference of the tree
  std::unordered_set<std::string> done_;                            // files already in the pool
  std::unordered_set<std::string> active_;                          // files being built (cycle check)
};

}  // namespace

SchemaPool::SchemaPool(const ResolvedSchema& schema) : pool_(std::make_unique<gpb::DescriptorPool>()) {
  if (schema.type != SchemaType::protobuf) throw std::invalid_argument("not a Protobuf schema");
  // The parser logs warnings (a file without a syntax statement) instead of reporting them;
  // they are of no use to krow's users. Compiling is rare, so the process-wide silencer is
  // held only for this constructor.
  const gpb::LogSilencer quiet;
  PoolBuilder builder(*pool_);
  builder.index_references(schema);
  // The registry schema has no file name of its own; this one cannot clash with an import
  // path, which never holds a space.
  const std::string root_name = "schema " + std::to_string(schema.id);
  root_ = builder.build_text(root_name, schema.text, &schema);
  for (const std::string_view name : kWellKnownFiles) builder.require(std::string(name), nullptr, root_name);
}

}  // namespace krow::pb
