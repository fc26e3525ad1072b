#include "series_layout.h"

namespace tradeapi::bridge {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::I8: case DType::U8: case DType::F8: return 8;
    case DType::I4: case DType::U4: return 4;
  }
  return 0;
}

RowLayout parse_dtype(const nlohmann::json& dtype) {
  if (!dtype.is_object()) throw ProtocolError("SERIES_HEAD dtype is not an object");
  auto is = dtype.find("itemsize");
  auto fs = dtype.find("fields");
  if (is == dtype.end() || !is->is_number_unsigned() || is->get<uint64_t>() == 0 || is->get<uint64_t>() > (1u << 20))
    throw ProtocolError("SERIES_HEAD dtype has no valid itemsize");
  if (fs == dtype.end() || !fs->is_array()) throw ProtocolError("SERIES_HEAD dtype has no fields");
  RowLayout layout;
  layout.itemsize = is->get<size_t>();
  for (const auto& f : *fs) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type") ||
        !f["type"].is_string() || !f.contains("offset") || !f["offset"].is_number_unsigned())
      throw ProtocolError("SERIES_HEAD dtype field is malformed");
    std::string type = f["type"].get<std::string>();
    DType t;
    if (type == "<i8") t = DType::I8;
    else if (type == "<u8") t = DType::U8;
    else if (type == "<f8") t = DType::F8;
    else if (type == "<i4") t = DType::I4;
    else if (type == "<u4") t = DType::U4;
    else throw ProtocolError("SERIES_HEAD dtype type " + type + " is not supported");
    size_t offset = f["offset"].get<size_t>();
    if (offset + dtype_size(t) > layout.itemsize) throw ProtocolError("SERIES_HEAD dtype field outside the row");
    layout.fields.push_back(RowField{f["name"].get<std::string>(), t, offset});
  }
  return layout;
}

}  // namespace tradeapi::bridge
