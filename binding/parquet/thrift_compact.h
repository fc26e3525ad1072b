// Thrift compact protocol, write side only: just what Parquet's footer and page headers need
// (structs, lists, i8/i16/i32/i64, bool, binary). Field ids and types follow parquet.thrift.
// https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace tradeapi::parquet {

// Compact protocol type ids (field headers and list element types).
enum class CType : uint8_t {
  BoolTrue = 1,
  BoolFalse = 2,
  Byte = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  Double = 7,
  Binary = 8,
  List = 9,
  Set = 10,
  Map = 11,
  Struct = 12,
};

inline uint32_t zigzag32(int32_t v) {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
inline uint64_t zigzag64(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// Unsigned LEB128: 7 bits per byte, low group first, high bit set on all but the last byte.
inline void put_varint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

// Writes one struct (and whatever it nests) to `out`. Fields must be given in the order the
// caller wants them on the wire; the writer tracks the last field id of each open struct for the
// short (delta) field headers.
class CompactWriter {
 public:
  explicit CompactWriter(std::vector<uint8_t>& out) : out_(out) {}

  void field_bool(int16_t id, bool v) { field_header(id, v ? CType::BoolTrue : CType::BoolFalse); }
  void field_i8(int16_t id, int8_t v) {
    field_header(id, CType::Byte);
    out_.push_back(static_cast<uint8_t>(v));
  }
  void field_i16(int16_t id, int16_t v) {
    field_header(id, CType::I16);
    put_varint(out_, zigzag32(v));
  }
  void field_i32(int16_t id, int32_t v) {
    field_header(id, CType::I32);
    put_varint(out_, zigzag32(v));
  }
  void field_i64(int16_t id, int64_t v) {
    field_header(id, CType::I64);
    put_varint(out_, zigzag64(v));
  }
  void field_binary(int16_t id, const void* data, size_t size) {
    field_header(id, CType::Binary);
    binary(data, size);
  }
  void field_string(int16_t id, std::string_view s) { field_binary(id, s.data(), s.size()); }

  // A struct-typed field: its fields follow, then end_struct().
  void begin_struct_field(int16_t id) {
    field_header(id, CType::Struct);
    push();
  }
  // A list-typed field with `size` elements of `element` type; the elements follow (for structs:
  // begin_struct_element() ... end_struct() each).
  void begin_list_field(int16_t id, CType element, size_t size) {
    field_header(id, CType::List);
    list_header(element, size);
  }
  void begin_struct_element() { push(); }
  // Closes a struct opened by begin_struct_field / begin_struct_element (writes its stop byte).
  void end_struct() {
    out_.push_back(0);
    last_id_ = stack_.back();
    stack_.pop_back();
  }
  // Ends the top-level struct.
  void end_message() { out_.push_back(0); }

  // List elements of scalar types.
  void i32(int32_t v) { put_varint(out_, zigzag32(v)); }
  void binary(const void* data, size_t size) {
    put_varint(out_, size);
    const auto* p = static_cast<const uint8_t*>(data);
    out_.insert(out_.end(), p, p + size);
  }
  void string(std::string_view s) { binary(s.data(), s.size()); }

  std::vector<uint8_t>& out() { return out_; }

 private:
  void field_header(int16_t id, CType type) {
    const int delta = id - last_id_;
    if (delta > 0 && delta <= 15) {
      out_.push_back(static_cast<uint8_t>((delta << 4) | static_cast<int>(type)));
    } else {
      out_.push_back(static_cast<uint8_t>(type));
      put_varint(out_, zigzag32(id));
    }
    last_id_ = id;
  }
  void list_header(CType element, size_t size) {
    if (size < 15) {
      out_.push_back(static_cast<uint8_t>((size << 4) | static_cast<size_t>(element)));
    } else {
      out_.push_back(static_cast<uint8_t>(0xF0 | static_cast<int>(element)));
      put_varint(out_, size);
    }
  }
  void push() {
    stack_.push_back(last_id_);
    last_id_ = 0;
  }

  std::vector<uint8_t>& out_;
  int16_t last_id_ = 0;
  std::vector<int16_t> stack_;
};

}  // namespace tradeapi::parquet
